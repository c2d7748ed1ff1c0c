#pragma once
// Several runs side by side: every prefill row and decode cell any of them has, each run's value,
// its ratio to the first run, and whether the difference is within the cells' noise.
//
// The noise rule (docs/reports.md): a value's relative noise is the standard error of what the
// cell measured, estimated from its own spread —
//   tok/s:  s = (tbt_p90 − tbt_p50) / (1.2816 · tbt_p50),  n = output tokens ÷ concurrency
//   TTFT:   s = (ttft_p90 − ttft_p50) / (1.2816 · ttft_p50), n = requests started (else concurrency),
//           standard error of a median = 1.2533 · s / √n
//   prefill: one request, no spread: 0
// and two values differ within noise when |B/A − 1| ≤ max(floor, 2·√(se_A² + se_B²)), with the
// floor 2% for decode tok/s and 5% for TTFT and prefill (few samples).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "result/cell_status.h"
#include "result/result.h"

namespace sm::report {

/// Differences below this share are never called real for decode tok/s.
inline constexpr double kThroughputNoiseFloor = 0.02;
/// ... nor for TTFT and prefill, which rest on few requests.
inline constexpr double kLatencyNoiseFloor = 0.05;

/// What a compared number measures: decides its noise and which direction is better.
enum class CompareMetric {
  PromptTokS,      ///< prefill prompt tok/s (higher is better)
  PrefillTtft,     ///< prefill TTFT (lower is better)
  TotalTokS,       ///< decode total tok/s (higher is better)
  PerRequestTokS,  ///< decode per-request tok/s (higher is better)
  DecodeTtft,      ///< decode median TTFT (lower is better)
};

/// Column title: "prompt tok/s", "TTFT", "total tok/s", "per request tok/s".
std::string metric_title(CompareMetric metric);
/// True when a larger value is better.
bool higher_is_better(CompareMetric metric);

/// How a later run's value relates to the first run's.
enum class Change {
  None,    ///< no ratio: either value is missing (not run, error, absent)
  Same,    ///< within noise ("≈")
  Better,  ///< beyond noise, in the good direction
  Worse,   ///< beyond noise, in the bad direction
};

/// One run's value of one metric in one row.
struct CompareValue {
  bool present = false;                     ///< the run has this row or cell
  CellStatus status = CellStatus::Pending;  ///< meaningful when present
  std::optional<double> value;              ///< the number, when the cell has numbers
  double standard_error = 0;                ///< relative standard error estimated from the cell (0.01 = 1%)
  std::string text;                         ///< "181.7", "24 ms", or the status label; "—" when absent
  std::optional<double> ratio;              ///< value ÷ first run's value (later runs, both numbers known)
  double threshold = 0;                     ///< the noise threshold the ratio was judged against
  Change change = Change::None;
  std::string ratio_text;                   ///< "1.12×", "≈1.01×"; empty without a ratio
};

/// One prefill row or decode cell across runs.
struct CompareRow {
  int64_t context = 0;      ///< prompt tokens
  int64_t concurrency = 1;  ///< simultaneous requests (1 for prefill)
  std::vector<std::vector<CompareValue>> values;  ///< [metric index][run index]
};

/// The prefill rows or the decode cells.
struct CompareSection {
  std::string title;                    ///< "Prefill", "Sustained decode"
  bool prefill = false;                 ///< rows are prefill rows (no concurrency column)
  std::vector<CompareMetric> metrics;   ///< compared metrics, in column order
  std::vector<CompareRow> rows;         ///< ascending context, then concurrency
};

/// One compared run.
struct CompareRun {
  std::string letter;     ///< "A", "B", …
  std::string label;      ///< file or folder name
  std::string title;      ///< "Qwen3.5-4B-AWQ-4bit on RTX 3090 24GB"
  std::string engine;     ///< "vllm 0.32.0 · AWQ 4-bit"
  std::string kind;       ///< "Measured", "Simulated", "Predicted"
  std::string run_id;
  std::string started_at;
};

/// How a later run did against the first over the decode cells both ran.
struct CompareSummary {
  std::string letter;                ///< the later run
  int cells = 0;                     ///< decode cells with total tok/s in both
  std::optional<double> geo_mean;    ///< geometric mean of the total tok/s ratios
  int better = 0;                    ///< cells faster beyond noise
  int worse = 0;                     ///< cells slower beyond noise
  int same = 0;                      ///< cells within noise
  int only_first = 0;                ///< cells the first run ran and this one did not
  int only_this = 0;                 ///< cells this run ran and the first did not
};

/// Everything a comparison shows.
struct CompareModel {
  std::vector<CompareRun> runs;
  std::vector<CompareSummary> summaries;           ///< one per later run
  std::vector<std::string> setting_differences;    ///< "Max output: A 8,192 · B 4,096"
  CompareSection prefill;
  CompareSection decode;
  std::string noise_rule;                          ///< one paragraph for the footer
};

/// Compares `runs` (at least one) to the first. `labels` name them (empty: run ids).
CompareModel build_compare_model(const std::vector<RunResult>& runs, const std::vector<std::string>& labels);

/// The relative standard error of one decode cell's metric, from its own spread (0 when unknown).
double decode_standard_error(const DecodeCell& cell, CompareMetric metric);

/// Judges `value` against `base`: ratio, threshold = max(floor, 2·√(se_a² + se_b²)), change.
void judge(const CompareValue& base, CompareValue& value, CompareMetric metric);

}  // namespace sm::report
