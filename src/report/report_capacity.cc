#include "report/report_capacity.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/units.h"
#include "metrics/capacity.h"
#include "report/cell_format.h"
#include "report/translate.h"

namespace sm::report {

Matrix capacity_matrix(const RunResult& r) {
  Matrix m;
  m.title = tr("Users at a speed");
  m.caption = tr("simultaneous requests served with each one at or above the speed on top (its median per-request "
                 "tok/s) · rows are context length, columns are tok/s per user · ≈ read between two measured "
                 "concurrencies, ≥ every measured one met it");
  m.detail_label = tr("tok/s total");
  m.detail_name = tr("the box's total tok/s there");
  fill_floor_matrix(m, run_capacity(r), [](const CapacityPoint& p, MatrixCell& cell) {
    cell.value_num = static_cast<double>(p.users);
    const std::string users = format_thousands(p.users);
    cell.value = p.basis == "interpolated" ? "≈" + users : p.basis == "at_least" ? "≥" + users : users;
    if (p.total_tok_s && p.users > 0) cell.detail = format_rate(*p.total_tok_s);
    return true;
  });
  return m;
}

void fill_floor_matrix(Matrix& m, const std::vector<CapacityPoint>& points,
                       const std::function<bool(const CapacityPoint&, MatrixCell&)>& fill) {
  if (points.empty()) return;
  std::vector<double> floors;
  for (const auto& p : points) {
    if (std::find(m.contexts.begin(), m.contexts.end(), p.context) == m.contexts.end()) m.contexts.push_back(p.context);
    if (std::find(floors.begin(), floors.end(), p.floor_tok_s) == floors.end()) floors.push_back(p.floor_tok_s);
  }
  std::sort(m.contexts.begin(), m.contexts.end());
  std::sort(floors.begin(), floors.end());
  for (double f : floors) {
    m.concurrency.push_back(static_cast<int64_t>(f));
    m.column_labels.push_back(trf("{:g} tok/s", f));
  }
  m.cells.assign(m.contexts.size(), std::vector<MatrixCell>(floors.size()));
  for (auto& row : m.cells)
    for (auto& cell : row) cell.value = std::string(kDash);
  for (const auto& p : points) {
    const size_t i = std::lower_bound(m.contexts.begin(), m.contexts.end(), p.context) - m.contexts.begin();
    const size_t j = std::lower_bound(floors.begin(), floors.end(), p.floor_tok_s) - floors.begin();
    MatrixCell& cell = m.cells[i][j];
    if (!fill(p, cell)) continue;
    cell.present = true;
    cell.status = CellStatus::Valid;
  }
}

}  // namespace sm::report
