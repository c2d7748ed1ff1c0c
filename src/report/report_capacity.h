#pragma once
// The report's "Users at a speed" table (docs/METRICS.md, "Users at a speed floor"): for each
// context (rows) and per-user speed floor (columns), how many simultaneous users the server serves
// at that speed, with the box's total output tok/s there.
#include <functional>
#include <vector>

#include "report/report_model.h"
#include "result/result.h"

namespace sm::report {

/// The table as a Matrix whose columns are the floors (column_labels "20 tok/s"); cells read
/// "8", "≈11" (interpolated), "≥64" (every measured concurrency met it) or "0". No cells when the
/// run has no valid decode cell with a per-request rate.
Matrix capacity_matrix(const RunResult& r);

/// Lays `m` out over capacity points: rows their contexts, columns their floors ("20 tok/s"),
/// every cell "—"; then `fill` writes each point's cell and returns true to mark it present and
/// valid (false leaves the dash). Shared by "Users at a speed" and "Cost at a speed".
void fill_floor_matrix(Matrix& m, const std::vector<CapacityPoint>& points,
                       const std::function<bool(const CapacityPoint&, MatrixCell&)>& fill);

}  // namespace sm::report
