#pragma once
// How the site writes telemetry figures and verdicts (docs/METRICS.md, "Telemetry"): tokens per
// joule, watts, MHz, degrees, and the throttle verdict in words. "—" for a missing value.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sm::site {

/// Tokens per joule with three significant figures: "0.412", "2.41", "14.2", "312".
std::string format_tokens_per_joule(const std::optional<double>& tokens_per_joule);

/// Board power: "312 W".
std::string format_watts(const std::optional<double>& watts);

/// Energy: "9,360 J".
std::string format_joules(const std::optional<double>& joules);

/// A clock: "1,695 MHz".
std::string format_mhz(const std::optional<double>& mhz);

/// A temperature: "71 °C".
std::string format_celsius(const std::optional<double>& celsius);

/// A verdict in words: "ok" → "OK", "power_capped" → "Power capped", "thermal" → "Thermal",
/// "hw_slowdown" → "Hardware slowdown", "clocks_below_max" → "Clocks below max"; "" → "—";
/// anything else as it is (the caller escapes it).
std::string throttle_label(std::string_view verdict);

/// A decode cell the way the report names it: "16K × 64"; a prefill row: "prefill 32K".
std::string cell_name(int64_t context, int64_t concurrency);
std::string prefill_row_name(int64_t context);

}  // namespace sm::site
