#pragma once
// The CPU packages' energy counters (RAPL, through the kernel's powercap interface):
// sys/class/powercap/intel-rapl:N/energy_uj for each package N (AMD's Zen parts use the same
// "intel-rapl" zones). The counters wrap at max_energy_range_uj; the reader follows the wraps and
// keeps one running total, so a window's host energy is the difference of two readings
// (docs/METRICS.md, "Energy and cost per million tokens"). Most kernels let only root read
// energy_uj: then, and in VMs, nothing is read and the host's energy is an estimate.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace sm {

class RaplReader {
 public:
  /// Finds the package zones under `sys` (the /sys directory; a fixture tree in tests) whose
  /// energy_uj can be read now; reads nothing else yet.
  explicit RaplReader(const std::filesystem::path& sys);

  /// Joules used by all the packages since the first read() (0 then); empty when no package's
  /// counter can be read (or one stopped being readable). Not thread-safe.
  std::optional<double> read();

  /// Packages found (0: none readable).
  size_t packages() const { return zones_.size(); }

 private:
  struct Zone {
    std::filesystem::path energy_uj;
    uint64_t max_range_uj = 0;            ///< where the counter wraps (0: unknown, a wrap is not followed)
    std::optional<uint64_t> previous_uj;  ///< the last raw reading
  };
  std::vector<Zone> zones_;
  double total_j_ = 0;
};

}  // namespace sm
