#include "site/telemetry_text.h"

#include <fmt/format.h>

#include <cmath>

#include "core/units.h"
#include "site/ui_language.h"

namespace sm::site {

namespace {

constexpr std::string_view kDash = "—";

std::string whole(double v) { return format_whole(v); }

}  // namespace

std::string format_tokens_per_joule(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return std::string(kDash);
  const double a = std::fabs(*v);
  if (a >= 99.95) return whole(*v);
  if (a >= 9.995) return fmt::format("{:.1f}", *v);
  if (a >= 0.9995) return fmt::format("{:.2f}", *v);
  return fmt::format("{:.3f}", *v);
}

std::string format_watts(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return std::string(kDash);
  return whole(*v) + " W";
}

std::string format_joules(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return std::string(kDash);
  return whole(*v) + " J";
}

std::string format_mhz(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return std::string(kDash);
  return whole(*v) + " MHz";
}

std::string format_celsius(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return std::string(kDash);
  return whole(*v) + " °C";
}

std::string throttle_label(std::string_view verdict) {
  if (verdict.empty()) return std::string(kDash);
  for (std::string_view known : {"ok", "power_capped", "thermal", "hw_slowdown", "clocks_below_max"})
    if (verdict == known) return ui_text("throttle." + std::string(known));
  return std::string(verdict);
}

std::string cell_name(int64_t context, int64_t concurrency) {
  return fmt::format("{} × {}", format_tokens(context), concurrency);
}

std::string prefill_row_name(int64_t context) { return ui_format("telemetry.prefill_row", format_tokens(context)); }

}  // namespace sm::site
