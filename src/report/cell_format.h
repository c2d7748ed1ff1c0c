#pragma once
// How every printer writes a number of a row or cell: the seed page's formats, in one place.
// Missing values (std::nullopt, a cell that did not run) are written as kDash.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "result/cell_status.h"
#include "result/result.h"

namespace sm::report {

/// What a missing value shows.
inline constexpr std::string_view kDash = "—";

/// "Valid", "Over capacity", "Beyond the model", "Error", "Interrupted", "Pending".
std::string status_label(CellStatus status);

/// Short form for narrow terminal cells: "over cap", "beyond model", "error", "partial", "pending".
std::string status_short(CellStatus status);

/// True when the cell's numbers exist: it ran (valid) or ran partly (interrupted).
bool has_numbers(CellStatus status);

/// A settled adaptive window (--precision): the cell's total_tok_s is a projection to the full
/// --duration, not tokens ÷ a window of that length; every printer marks it "~" (issue 31).
bool total_is_projected(const RunResult& r, const DecodeCell& c);

/// Output tok/s of a decode cell or the "Total tok/s" of a prefill row: "181.7", "1,081.0", "10.6K".
std::string format_tok_s(std::optional<double> per_s);
/// "1,081.0 ± 4.2": a rate with the half-width of its 95% interval, when there is one.
std::string format_tok_s_ci(std::optional<double> per_s, std::optional<double> half_width);

/// Prompt tok/s in the seed's Prefill section: "10.6K", "9,919", "523" (whole numbers below 10K).
std::string format_prompt_rate(std::optional<double> per_s);

/// A latency in milliseconds, whole below 10 s: "24 ms", "1,635 ms"; one decimal below 10 ms: "0.8 ms".
std::string format_latency_ms(std::optional<double> ms);

/// A gap between tokens, always one decimal: "5.5 ms", "12.0 ms".
std::string format_gap_ms(std::optional<double> ms);

/// A count with thousands separators: "5,451".
std::string format_count(std::optional<int64_t> count);

/// Average requests in flight, two decimals: "1.00", "63.87".
std::string format_active(std::optional<double> requests);

/// A window length, one decimal: "30.0 s".
std::string format_window_s(std::optional<double> seconds);

/// A setting's duration: "30 s", "2.5 s".
std::string format_duration_s(double seconds);
/// A stretch of wall time: "0.4 s", "22 s", "6m12s", "1h05m".
std::string format_elapsed_s(double seconds);

/// Memory size in whole GB (GiB), one decimal below 10: "24 GB", "7.8 GB".
std::string format_gb(int64_t bytes);

/// Context label of the seed's Prefill section: "8K context".
std::string context_label(int64_t tokens);

/// A ratio to a baseline: "1.12×", "0.98×".
std::string format_ratio(double ratio);

/// Mean GPU power, whole watts: "312 W".
std::string format_power_w(std::optional<double> watts);

/// Tokens per joule: two decimals below 10 ("0.64", "2.86"), one below 100 ("13.4"), then whole
/// with thousands separators.
std::string format_tokens_per_joule(std::optional<double> tokens_per_j);

/// A clock, whole MHz: "1,695 MHz".
std::string format_clock_mhz(std::optional<double> mhz);

/// A temperature, whole degrees: "71 °C".
std::string format_temp_c(std::optional<double> celsius);

/// A share already in percent, whole: 34.2 -> "34%".
std::string format_percent(std::optional<double> percent);

/// A throttle verdict (CellTelemetry::throttle) in words: "ok" -> "OK", "power_capped" ->
/// "Power capped", "thermal" -> "Thermal", "hw_slowdown" -> "Hardware slowdown",
/// "clocks_below_max" -> "Clocks below max"; another word sentence-cased; empty -> kDash.
std::string throttle_label(std::string_view verdict);

/// Humanised setting value: "fixed_duration" -> "Fixed duration".
std::string sentence_case(std::string_view text);

}  // namespace sm::report
