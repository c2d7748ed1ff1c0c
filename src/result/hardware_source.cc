#include <array>
#include <utility>

#include "result/result.h"

namespace sm {

namespace {

constexpr std::array<std::pair<HardwareSource, std::string_view>, 5> kNames = {{
    {HardwareSource::Probed, "probed"},
    {HardwareSource::Declared, "declared"},
    {HardwareSource::Unknown, "unknown"},
    {HardwareSource::Simulated, "simulated"},
    {HardwareSource::Catalog, "catalog"},
}};

}  // namespace

std::string_view to_string(HardwareSource source) {
  for (const auto& [value, name] : kNames)
    if (value == source) return name;
  return "unknown";
}

std::optional<HardwareSource> parse_hardware_source(std::string_view text) {
  for (const auto& [value, name] : kNames)
    if (name == text) return value;
  return std::nullopt;
}

}  // namespace sm
