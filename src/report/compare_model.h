#pragma once
// Several runs side by side: every prefill row and decode cell any of them has, each run's value,
// its ratio to the first run, and whether the difference is within the cells' noise.
//
// The noise rule (docs/reports.md, "The noise rule"): each value carries two relative 95%
// half-widths —
//   within:  the cell's own interval (report/cell_noise.h: total_tok_s_ci ÷ total_tok_s; cells
//            written before intervals existed: from their spread, 1.96 × the standard error of
//            decode_standard_error); TTFT: 1.96 × the standard error of its median; prefill: 0;
//   between: how far a second run could land: the spread of the cell's --repeat passes (half
//            their range, report/cell_noise.h), else a floor measured on real runs
//            (kBetweenRunNoiseFloor for decode tok/s, kLatencyNoiseFloor for TTFT and prefill).
// The ratio B/A has the interval B/A · exp(±h), h = √(within_A² + within_B² + between_A² +
// between_B²); the difference is significant only when that interval excludes 1.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "result/cell_status.h"
#include "result/result.h"

namespace sm::report {

/// How far one run's decode tok/s lands from another's with the same settings on the same host,
/// as a relative half-width (half the range of repeated runs), when the cell has no --repeat
/// passes to say so itself. Measured with bench/between_run_noise.sh (docs/performance.md,
/// "Between-run noise"; how it was chosen: docs/reports.md).
inline constexpr double kBetweenRunNoiseFloor = 0.06;
/// ... of TTFT and prefill, which rest on few requests.
inline constexpr double kLatencyNoiseFloor = 0.05;

/// What a compared number measures: decides its noise and which direction is better.
enum class CompareMetric {
  PromptTokS,      ///< prefill prompt tok/s (higher is better)
  PrefillTtft,     ///< prefill TTFT (lower is better)
  TotalTokS,       ///< decode total tok/s (higher is better)
  PerRequestTokS,  ///< decode per-request tok/s (higher is better)
  DecodeTtft,      ///< decode median TTFT (lower is better)
};

/// Column title: "prompt tok/s", "TTFT", "output tok/s (all requests)", "per request tok/s", "TTFT (warm prefix)".
std::string metric_title(CompareMetric metric);
/// The metric's name in compare's JSON (the result file's field): "prompt_tok_s", "ttft_ms", "total_tok_s", …
std::string metric_key(CompareMetric metric);
/// True when a larger value is better.
bool higher_is_better(CompareMetric metric);

/// How a later run's value relates to the first run's.
enum class Change {
  None,    ///< no ratio: either value is missing (not run, error, absent)
  Same,    ///< within noise ("≈"): the ratio's interval holds 1
  Better,  ///< beyond noise, in the good direction
  Worse,   ///< beyond noise, in the bad direction
};

/// One run's value of one metric in one row.
struct CompareValue {
  bool present = false;                     ///< the run has this row or cell
  CellStatus status = CellStatus::Pending;  ///< meaningful when present
  std::optional<double> value;              ///< the number, when the cell has numbers
  double within = 0;                        ///< relative 95% half-width of the cell's own measurement (0.02 = 2%)
  std::optional<double> between;            ///< relative run-to-run half-width from its --repeat passes;
                                            ///< nullopt: the metric's floor stands in
  std::string text;                         ///< "181.7", "181.7 ± 9.1", "24 ms", or the status label; "—" when absent
  std::optional<double> ratio;              ///< value ÷ first run's value (later runs, both numbers known)
  std::optional<double> ratio_low;          ///< the ratio's interval: ratio · exp(−threshold) ...
  std::optional<double> ratio_high;         ///< ... to ratio · exp(+threshold)
  double threshold = 0;                     ///< h: the interval's half-width in log ratio
  bool significant = false;                 ///< the interval excludes 1
  Change change = Change::None;
  std::string ratio_text;                   ///< "1.12×"; "≈" within noise; empty without a ratio
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
  int same = 0;                      ///< cells within noise (the ratio's interval holds 1)
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

/// The relative standard error of one decode cell's metric: its interval ÷ 1.96 where it has one,
/// else from its own spread (0 when unknown).
double decode_standard_error(const DecodeCell& cell, CompareMetric metric);

/// The between-run half-width that stands in for a cell without --repeat passes.
double between_run_floor(CompareMetric metric);

/// The comparison as JSON for scripts and CI (compare_json.cc; docs/reports.md, "compare --format json").
std::string compare_json(const CompareModel& model);

/// Judges `value` against `base`: ratio, its interval (h = √(within_A² + within_B² + between_A² +
/// between_B²), each between defaulting to between_run_floor), significant, change.
void judge(const CompareValue& base, CompareValue& value, CompareMetric metric);

}  // namespace sm::report
