#pragma once
// The fake NVML library's script (format: fake_nvml.h): parsed once, then asked what each GPU
// says at a time t (seconds on the fake's clock).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fake_nvml {

/// A value constant or ramping linearly from `from` to `to` over `over_s` seconds, then flat.
struct Ramp {
  double from = 0;
  double to = 0;
  double over_s = 0;  ///< 0: constant `to`

  double at(double t_s) const;
  /// The integral of at() from 0 to t_s (exact).
  double integral(double t_s) const;
};

struct FakeGpu {
  std::optional<std::string> name;
  std::optional<std::string> uuid;
  /// PIDs with a compute / graphics context on the GPU (empty: the list is empty; absent: the
  /// function answers NOT_SUPPORTED).
  std::optional<std::vector<int>> processes, graphics_processes;
  std::optional<uint64_t> mem_total_bytes, mem_used_bytes;
  std::optional<Ramp> sm_clock_mhz, mem_clock_mhz, temp_c, util_pct, mem_util_pct, power_w;
  std::optional<double> sm_clock_max_mhz, mem_clock_max_mhz, power_limit_w;
  std::optional<int> pstate, pcie_gen, pcie_width, pcie_gen_max, pcie_width_max;
  double energy_start_j = 0;
  /// (from_s, bits), sorted by from_s.
  std::optional<std::vector<std::pair<double, uint64_t>>> clocks_event_reasons;
  std::map<std::string, int> errors;  ///< function name without "_v2" -> nvmlReturn_t

  uint64_t clocks_event_reasons_at(double t_s) const;
  /// Energy counter in J at t_s; empty without power_w.
  std::optional<double> energy_j_at(double t_s) const;
};

struct Script {
  std::optional<int> init_error;
  std::optional<double> now_s;
  std::map<std::string, int> errors;  ///< for every GPU and the global functions
  std::vector<FakeGpu> gpus;
};

/// Parses a script; on failure, `error` says where and why.
std::optional<Script> parse_script(const std::string& json, std::string& error);

/// The code a function answers for `gpu` (null: a global function) by the script's errors, or 0.
int scripted_error(const Script& script, const FakeGpu* gpu, const char* function);

}  // namespace fake_nvml
