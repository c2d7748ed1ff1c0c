#include "report/report_energy.h"

#include <algorithm>
#include <fmt/format.h>

#include "report/cell_format.h"
#include "report/report_capacity.h"
#include "report/translate.h"

namespace sm::report {

namespace {

std::string three_figures(double v) { return fmt::format("{:.3g}", v); }

}  // namespace

std::string format_cost(double amount, const std::string& currency) {
  return currency.empty() ? three_figures(amount) : three_figures(amount) + " " + currency;
}

std::string format_joules_per_token(double j) { return three_figures(j) + " J"; }

Matrix energy_matrix(const RunResult& r) {
  Matrix m;
  if (std::none_of(r.decode.begin(), r.decode.end(), [](const DecodeCell& c) { return c.energy.has_value(); }))
    return m;
  const CostSettings& cost = r.settings.cost;
  m.title = tr("Energy per output token");
  m.caption = tr("joules per output token, GPUs and host (RAPL, else an estimate), the idle share included · rows "
                 "are context length, columns are simultaneous requests");
  const bool priced = cost.power_price_per_kwh || cost.hardware_cost;
  m.detail_name = priced ? tr("cost per million output tokens") : tr("GPU and host power");
  for (const auto& c : r.decode) {
    if (std::find(m.contexts.begin(), m.contexts.end(), c.context) == m.contexts.end()) m.contexts.push_back(c.context);
    if (std::find(m.concurrency.begin(), m.concurrency.end(), c.concurrency) == m.concurrency.end())
      m.concurrency.push_back(c.concurrency);
  }
  std::sort(m.contexts.begin(), m.contexts.end());
  std::sort(m.concurrency.begin(), m.concurrency.end());
  m.cells.assign(m.contexts.size(), std::vector<MatrixCell>(m.concurrency.size()));
  for (auto& row : m.cells)
    for (auto& cell : row) cell.value = std::string(kDash);
  for (const auto& c : r.decode) {
    const size_t i = std::lower_bound(m.contexts.begin(), m.contexts.end(), c.context) - m.contexts.begin();
    const size_t j = std::lower_bound(m.concurrency.begin(), m.concurrency.end(), c.concurrency) - m.concurrency.begin();
    MatrixCell& cell = m.cells[i][j];
    cell.present = true;
    cell.status = c.status;
    if (c.status != CellStatus::Valid) {
      cell.value = status_label(c.status);
      continue;
    }
    if (!c.energy) continue;
    const CellEnergy& e = *c.energy;
    cell.value_num = e.served_j_per_output_token;
    cell.value = format_joules_per_token(e.served_j_per_output_token);
    if (priced && e.cost_per_mtok) cell.detail = format_cost(*e.cost_per_mtok, cost.currency);
    else if (!priced) cell.detail = format_power_w(e.power_w);
    cell.note = e.host_source == "rapl" ? tr("host energy measured (RAPL)") : tr("host energy estimated");
    if (e.gpu_j_per_output_token)
      cell.note += "; " + trf("GPUs alone {} per output token", format_joules_per_token(*e.gpu_j_per_output_token));
  }
  return m;
}

Matrix capacity_cost_matrix(const RunResult& r) {
  Matrix m;
  const CostSettings& cost = r.settings.cost;
  if (!cost.power_price_per_kwh && !cost.hardware_cost) return m;
  if (std::none_of(r.capacity.begin(), r.capacity.end(), [](const CapacityPoint& p) { return p.cost_per_mtok.has_value(); }))
    return m;
  m.title = tr("Cost at a speed");
  m.caption = tr("cost per million output tokens with the users of \"Users at a speed\" served · rows are context "
                 "length, columns are tok/s per user");
  m.detail_name = tr("energy per output token");
  fill_floor_matrix(m, r.capacity, [&cost](const CapacityPoint& p, MatrixCell& cell) {
    if (!p.cost_per_mtok) return false;
    cell.value_num = p.cost_per_mtok;
    cell.value = format_cost(*p.cost_per_mtok, cost.currency);
    if (p.j_per_output_token) cell.detail = format_joules_per_token(*p.j_per_output_token);
    return true;
  });
  return m;
}

}  // namespace sm::report
