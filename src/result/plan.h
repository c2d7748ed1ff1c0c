#pragma once
// The plan: which prefill rows and decode cells a run has, and which of them can run at all.
// Part of the record: result.json keeps the matrix settings, and calc, reports and the site plan
// the same way a run does.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "result/cell_status.h"

namespace sm {

/// The shape of the matrix, as the user asked for it (or the defaults).
struct MatrixSettings {
  std::vector<int64_t> contexts;          ///< decode rows, prompt tokens each stream shares
  std::vector<int64_t> concurrency;       ///< decode columns, simultaneous requests
  std::vector<int64_t> prefill_contexts;  ///< prefill rows, prompt tokens of one cold request
  int64_t max_output_tokens = 8192;       ///< tokens each decode request asks for
  double duration_s = 30.0;               ///< length of each decode cell's measurement window
  double precision = 0;                   ///< > 0: adaptive windows (--precision, a fraction): a window may
                                          ///< close once its figure is within this of the full window's
  double min_window_s = 5;                ///< adaptive windows: never shorter than this (--min-window)
  bool precision_audit = false;           ///< with precision: every window runs to duration_s anyway, and each
                                          ///< cell records where it would have closed (--precision-audit)
  int64_t requests_per_cell = 0;          ///< > 0: burst cells, this many measured requests each (--requests)
  int64_t warmup_requests = 0;            ///< burst cells: requests sent first and not measured
                                          ///< (--warmup-requests; -1: one per simultaneous request, at most 8)
};

/// What limits a server's matrix. Unknown values leave cells runnable.
struct CapacityLimits {
  std::optional<int64_t> kv_capacity_tokens;  ///< tokens the KV cache holds (one engine replica)
  std::optional<int64_t> max_model_len;       ///< longest prompt + output one request may have
};

struct PlannedPrefillRow {
  int64_t context = 0;  ///< prompt tokens
  CellStatus status = CellStatus::Valid;
};

struct PlannedDecodeCell {
  int64_t context = 0;      ///< prompt tokens shared by every stream of the cell
  int64_t concurrency = 0;  ///< streams kept in flight
  CellStatus status = CellStatus::Valid;
};

struct Plan {
  std::vector<PlannedPrefillRow> prefill;  ///< ascending context
  std::vector<PlannedDecodeCell> decode;   ///< row-major: context ascending, then concurrency
};

constexpr int64_t kK = 1024;
constexpr int64_t kMaxContextTokens = 10 * kK * kK;  ///< longest context a run or prediction accepts

/// Defaults of the seed page: 0,16K,32K,64K,128K up to max_model_len − max_output, which ends the
/// list (the seed's 248K row; 120K for a 128K model with 8K output).
std::vector<int64_t> default_contexts(std::optional<int64_t> max_model_len, int64_t max_output_tokens);
std::vector<int64_t> default_concurrency();       ///< 1,2,4,…,128
std::vector<int64_t> default_prefill_contexts();  ///< 8K,16K,32K,64K,128K

/// Status of one decode cell under the limits.
CellStatus decode_cell_status(int64_t context, int64_t concurrency, int64_t max_output_tokens,
                              const CapacityLimits& limits);
/// Status of one prefill row (one request, one output token).
CellStatus prefill_row_status(int64_t context, const CapacityLimits& limits);

/// A list of contexts or concurrencies as the plan reads it: ascending, each value once.
std::vector<int64_t> sorted_unique(std::vector<int64_t> v);

/// Sorts and de-duplicates the lists, then assigns every cell its status.
Plan make_plan(const MatrixSettings& settings, const CapacityLimits& limits);

/// What a decode cell costs beyond its window (warm-up, ramp, idle wait), and a prefill row, in
/// the estimate below, until the progress line has seen real ones.
constexpr double kDecodeCellOverheadEstimateS = 2.0;
constexpr double kPrefillRowEstimateS = 1.0;

/// Seconds the plan's runnable rows and cells should take: each decode cell its window plus
/// kDecodeCellOverheadEstimateS, each prefill row kPrefillRowEstimateS.
double estimated_seconds(const Plan& plan, double duration_s);

/// The same as a range for any decode test: adaptive windows (--precision) last between
/// --min-window and --duration; burst cells (--requests) last as long as the server takes to
/// serve their requests, which the plan cannot know: only their overhead is counted.
struct TimeEstimate {
  double low_s = 0;
  double high_s = 0;
  bool decode_windows_unknown = false;  ///< burst cells: their windows are not in the figures
};
TimeEstimate estimated_time(const Plan& plan, const MatrixSettings& settings);

/// Checks the settings for values that make no sense (empty lists, zero duration, ...).
Result<void> validate(const MatrixSettings& settings);

}  // namespace sm
