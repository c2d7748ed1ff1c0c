#pragma once
// The Pareto chart's points (issue 34, docs/METRICS.md "Pareto chart"): each decode cell that
// counts is one point, total output tok/s (the box's, or per GPU) against the tok/s each request
// sees, one line per context in ascending concurrency. A point is on the frontier of its line
// when no other cell of the same context gives at least as much of both, and more of one: past the
// box's saturation more requests buy neither, and those cells fall off it.
//
// Cells that count are those the site ranks: valid, with both rates, whose output stands
// (metrics/output_check.h output_stands) and whose context's retrieval check did not fail.
#include <cstdint>
#include <optional>
#include <vector>

#include "result/result.h"

namespace sm {

struct ParetoPoint {
  int64_t context = 0;
  int64_t concurrency = 0;
  double total_tok_s = 0;        ///< the box's output tok/s (DecodeCell::total_tok_s)
  double per_request_tok_s = 0;  ///< tok/s each request sees (DecodeCell::per_request_tok_s)
  bool frontier = false;         ///< no other point of its line is at least as good on both axes and better on one
};

/// One context's points, ascending concurrency.
struct ParetoLine {
  int64_t context = 0;
  std::vector<ParetoPoint> points;
};

/// The decode cells rankings count (above): the Pareto chart's points, and the site's users at a speed.
std::vector<DecodeCell> counted_decode_cells(const RunResult& run);

/// The run's lines, ascending context; contexts with no cell that counts have none.
std::vector<ParetoLine> pareto_lines(const RunResult& run);

/// Marks each point's `frontier` among `points` (one line).
void mark_pareto_frontier(std::vector<ParetoPoint>& points);

/// The server's GPUs (RunResult::hardware), for per-GPU figures; std::nullopt when the hardware is
/// unknown or names no GPU (a CPU server): then only the box's figures are shown.
std::optional<int64_t> server_gpu_count(const RunResult& run);

}  // namespace sm
