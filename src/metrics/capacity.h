#pragma once
// Users at a speed floor (issue 34, docs/METRICS.md "Users at a speed floor"): from the decode
// cells, for each context, the most simultaneous requests whose per-request rate (the cell's
// per_request_tok_s, a median over its streams) stays at or above a floor — the answer to "how
// many people does this box serve at 20 tok/s at 32K?".
//
// At one context, valid cells in ascending concurrency c1 < c2 < …: the floor holds up to the
// last cell of the unbroken run from c1 that meets it, ck. When the next cell c(k+1) falls below
// it, and between the two the per-request rate falls while the total rises (the curve a batch of
// decoders draws), the users are read off the straight line between them (whole users, marked
// interpolated); otherwise ck, as measured. Every measured concurrency meeting the floor gives
// "at least" ck; c1 = 1 below it gives 0 users.
#include <span>
#include <vector>

#include "result/result.h"

namespace sm {

/// The default floors: a slow reader, a comfortable reader, an agent or code assistant (tok/s).
inline constexpr double kDefaultUserFloorsTokS[] = {10, 20, 50};

/// Every context's point at every floor (ascending context, then floor as given). Contexts with
/// no valid decode cell, or whose lowest measured concurrency is above one request and already
/// below a floor, give no point for it.
std::vector<CapacityPoint> capacity_points(std::span<const DecodeCell> cells, std::span<const double> floors_tok_s);

/// The floors a run asked for (settings.user_floors_tok_s), else the defaults.
std::vector<double> user_floors(const RunSettings& settings);

/// The run's capacity at its floors (user_floors), from the cells the rankings count
/// (metrics/pareto.h counted_decode_cells: a cell whose output looped, or at a context whose
/// retrieval check failed, says nothing of the model's speed) — what a run stores.
std::vector<CapacityPoint> capacity_of_run(const RunResult& run);

/// The run's capacity list: stored (when the file has one) or worked out from its cells (capacity_of_run).
std::vector<CapacityPoint> run_capacity(const RunResult& run);

}  // namespace sm
