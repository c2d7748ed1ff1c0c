#include "telemetry/rapl.h"

#include <algorithm>
#include <string>
#include <system_error>

#include "system/sysfs_files.h"

namespace sm {

namespace {

// "intel-rapl:0" is a package; "intel-rapl:0:1" (core, uncore, dram) is a part of one.
bool is_package_zone(const std::string& name) {
  constexpr std::string_view prefix = "intel-rapl:";
  if (!name.starts_with(prefix) || name.size() == prefix.size()) return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

RaplReader::RaplReader(const std::filesystem::path& sys) {
  std::error_code ec;
  const auto dir = sys / "class/powercap";
  std::vector<std::filesystem::path> found;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (is_package_zone(it->path().filename().string())) found.push_back(it->path());
  std::sort(found.begin(), found.end());
  for (const auto& zone : found) {
    if (!sysfs::read_int(zone / "energy_uj")) continue;  // root only on most kernels
    Zone z;
    z.energy_uj = zone / "energy_uj";
    if (auto m = sysfs::read_int(zone / "max_energy_range_uj"); m && *m > 0) z.max_range_uj = static_cast<uint64_t>(*m);
    zones_.push_back(std::move(z));
  }
}

std::optional<double> RaplReader::read() {
  if (zones_.empty()) return std::nullopt;
  double delta_j = 0;
  for (auto& z : zones_) {
    auto v = sysfs::read_int(z.energy_uj);
    if (!v || *v < 0) return std::nullopt;
    const auto now = static_cast<uint64_t>(*v);
    if (z.previous_uj) {
      uint64_t d = 0;
      if (now >= *z.previous_uj) d = now - *z.previous_uj;
      else if (z.max_range_uj > *z.previous_uj) d = z.max_range_uj - *z.previous_uj + now;  // wrapped once
      delta_j += static_cast<double>(d) / 1e6;
    }
    z.previous_uj = now;
  }
  total_j_ += delta_j;
  return total_j_;
}

}  // namespace sm
