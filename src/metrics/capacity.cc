#include "metrics/capacity.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "metrics/pareto.h"

namespace sm {

namespace {

struct Measured {
  int64_t concurrency = 0;
  double per_request_tok_s = 0;
  double total_tok_s = 0;
};

CapacityPoint point_at(int64_t context, double floor, const std::vector<Measured>& row) {
  CapacityPoint p;
  p.context = context;
  p.floor_tok_s = floor;
  size_t k = 0;  // cells of the unbroken run from the lowest concurrency that meet the floor
  while (k < row.size() && row[k].per_request_tok_s >= floor) ++k;
  if (k == 0) {
    p.basis = "none";
    return p;
  }
  const Measured& last = row[k - 1];
  p.users = last.concurrency;
  p.total_tok_s = last.total_tok_s;
  if (k == row.size()) {
    p.basis = "at_least";
    return p;
  }
  p.basis = "measured";
  const Measured& next = row[k];
  // The straight line between the two only where the curve allows it: per-request falling, total rising.
  if (!(last.per_request_tok_s > next.per_request_tok_s && next.total_tok_s >= last.total_tok_s)) return p;
  const double x = static_cast<double>(last.concurrency) +
                   static_cast<double>(next.concurrency - last.concurrency) * (last.per_request_tok_s - floor) /
                       (last.per_request_tok_s - next.per_request_tok_s);
  const auto users = static_cast<int64_t>(std::floor(x + 1e-9));
  if (users <= last.concurrency) return p;
  p.users = std::min(users, next.concurrency - 1);
  p.total_tok_s = last.total_tok_s + (next.total_tok_s - last.total_tok_s) *
                                         static_cast<double>(p.users - last.concurrency) /
                                         static_cast<double>(next.concurrency - last.concurrency);
  p.basis = "interpolated";
  return p;
}

}  // namespace

std::vector<CapacityPoint> capacity_points(std::span<const DecodeCell> cells, std::span<const double> floors_tok_s) {
  std::map<int64_t, std::vector<Measured>> rows;
  for (const DecodeCell& c : cells) {
    if (c.status != CellStatus::Valid || !c.per_request_tok_s || !c.total_tok_s || c.concurrency < 1) continue;
    rows[c.context].push_back({c.concurrency, *c.per_request_tok_s, *c.total_tok_s});
  }
  std::vector<CapacityPoint> out;
  for (auto& [context, row] : rows) {
    std::sort(row.begin(), row.end(), [](const Measured& a, const Measured& b) { return a.concurrency < b.concurrency; });
    for (double floor : floors_tok_s) {
      if (!(floor > 0)) continue;
      CapacityPoint p = point_at(context, floor, row);
      // Below the floor at more than one request: fewer might meet it, but none was measured.
      if (p.basis == "none" && row.front().concurrency > 1) continue;
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::vector<double> user_floors(const RunSettings& settings) {
  if (!settings.user_floors_tok_s.empty()) return settings.user_floors_tok_s;
  return {std::begin(kDefaultUserFloorsTokS), std::end(kDefaultUserFloorsTokS)};
}

std::vector<CapacityPoint> capacity_of_run(const RunResult& run) {
  return capacity_points(counted_decode_cells(run), user_floors(run.settings));
}

std::vector<CapacityPoint> run_capacity(const RunResult& run) {
  if (!run.capacity.empty()) return run.capacity;
  return capacity_of_run(run);
}

}  // namespace sm
