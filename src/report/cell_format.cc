#include "report/cell_format.h"

#include <cmath>
#include <fmt/format.h>

#include "core/units.h"
#include "report/translate.h"

namespace sm::report {

std::string status_label(CellStatus status) {
  switch (status) {
    case CellStatus::Valid: return tr("Valid");
    case CellStatus::OverCapacity: return tr("Over capacity");
    case CellStatus::BeyondModel: return tr("Beyond the model");
    case CellStatus::Error: return tr("Error");
    case CellStatus::Interrupted: return tr("Interrupted");
    case CellStatus::Pending: return tr("Pending");
  }
  return tr("Unknown");
}

std::string status_short(CellStatus status) {
  switch (status) {
    case CellStatus::Valid: return tr("valid");
    case CellStatus::OverCapacity: return tr("over cap");
    case CellStatus::BeyondModel: return tr("beyond model");
    case CellStatus::Error: return tr("error");
    case CellStatus::Interrupted: return tr("partial");
    case CellStatus::Pending: return tr("pending");
  }
  return "?";
}

bool has_numbers(CellStatus status) {
  return status == CellStatus::Valid || status == CellStatus::Interrupted;
}

bool total_is_projected(const RunResult& r, const DecodeCell& c) {
  return r.settings.precision && c.settled && *c.settled;
}

std::string format_tok_s(std::optional<double> per_s) {
  if (!per_s || !std::isfinite(*per_s)) return std::string(kDash);
  return format_rate(*per_s);
}

std::string format_tok_s_ci(std::optional<double> per_s, std::optional<double> half_width) {
  std::string out = format_tok_s(per_s);
  if (!per_s || !std::isfinite(*per_s) || !half_width || !std::isfinite(*half_width)) return out;
  return out + " ± " + (*half_width < 1'000 ? fmt::format("{:.1f}", *half_width) : format_rate(*half_width));
}

std::string format_prompt_rate(std::optional<double> per_s) {
  if (!per_s || !std::isfinite(*per_s)) return std::string(kDash);
  if (*per_s >= 10'000) return format_rate(*per_s);
  return format_whole(*per_s);
}

std::string format_latency_ms(std::optional<double> ms) {
  if (!ms || !std::isfinite(*ms)) return std::string(kDash);
  if (*ms < 9.95) return fmt::format("{:.1f} ms", *ms);
  return format_whole(*ms) + " ms";
}

std::string format_gap_ms(std::optional<double> ms) {
  if (!ms || !std::isfinite(*ms)) return std::string(kDash);
  if (*ms >= 1000) return format_whole(*ms) + " ms";
  return fmt::format("{:.1f} ms", *ms);
}

std::string format_count(std::optional<int64_t> count) {
  if (!count) return std::string(kDash);
  return format_thousands(*count);
}

std::string format_active(std::optional<double> requests) {
  if (!requests || !std::isfinite(*requests)) return std::string(kDash);
  return fmt::format("{:.2f}", *requests);
}

std::string format_window_s(std::optional<double> seconds) {
  if (!seconds || !std::isfinite(*seconds)) return std::string(kDash);
  return fmt::format("{:.1f} s", *seconds);
}

std::string format_duration_s(double seconds) {
  if (!std::isfinite(seconds) || std::abs(seconds) >= 1e15) return format_whole(seconds) + " s";
  if (std::abs(seconds - std::round(seconds)) < 1e-9) return fmt::format("{} s", std::llround(seconds));
  return fmt::format("{:g} s", seconds);
}

std::string format_elapsed_s(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return std::string(kDash);
  if (seconds < 9.95) return fmt::format("{:.1f} s", seconds);
  if (seconds >= 1e15) return format_whole(seconds) + " s";
  const int64_t total = std::llround(seconds);
  if (total < 60) return fmt::format("{} s", total);
  if (total < 3600) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
}

std::string format_gb(int64_t bytes) {
  double gb = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
  if (gb < 9.95) return fmt::format("{:.1f} GB", gb);
  return fmt::format("{} GB", std::llround(gb));
}

std::string context_label(int64_t tokens) { return trf("{} context", format_tokens(tokens)); }

std::string format_ratio(double ratio) {
  if (!std::isfinite(ratio)) return std::string(kDash);
  return fmt::format("{:.2f}×", ratio);
}

std::string format_power_w(std::optional<double> watts) {
  if (!watts || !std::isfinite(*watts)) return std::string(kDash);
  return format_whole(*watts) + " W";
}

std::string format_tokens_per_joule(std::optional<double> tokens_per_j) {
  if (!tokens_per_j || !std::isfinite(*tokens_per_j)) return std::string(kDash);
  double v = *tokens_per_j;
  if (v < 9.995) return fmt::format("{:.2f}", v);
  if (v < 99.95) return fmt::format("{:.1f}", v);
  return format_whole(v);
}

std::string format_clock_mhz(std::optional<double> mhz) {
  if (!mhz || !std::isfinite(*mhz)) return std::string(kDash);
  return format_whole(*mhz) + " MHz";
}

std::string format_temp_c(std::optional<double> celsius) {
  if (!celsius || !std::isfinite(*celsius)) return std::string(kDash);
  return format_whole(*celsius) + " °C";
}

std::string format_percent(std::optional<double> percent) {
  if (!percent || !std::isfinite(*percent)) return std::string(kDash);
  return format_whole(*percent) + "%";
}

std::string throttle_label(std::string_view verdict) {
  if (verdict.empty()) return std::string(kDash);
  if (verdict == "ok") return tr("OK");
  if (verdict == "hw_slowdown") return tr("Hardware slowdown");
  if (verdict == "thermal") return tr("Thermal");
  if (verdict == "power_capped") return tr("Power capped");
  if (verdict == "clocks_below_max") return tr("Clocks below max");
  return sentence_case(verdict);
}

std::string sentence_case(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c == '_') c = ' ';
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

}  // namespace sm::report
