#include "bench/busy_host.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/units.h"

namespace sm {

bool server_shares_the_host(const RunResult& r) {
  return r.hardware.source == HardwareSource::Probed || r.hardware.source == HardwareSource::Simulated;
}

namespace {
std::string cell_warning(double other_pct) {
  return fmt::format("the host was busy: other processes used {:.0f}% of its CPU during the window", other_pct);
}

// Adds the warning once; true when the row or cell ran on a busy host.
bool mark(std::vector<std::string>* warnings, const CellTelemetry& t, double threshold_pct) {
  if (!t.host_cpu_other_pct || *t.host_cpu_other_pct <= threshold_pct) return false;
  if (warnings) {
    const std::string w = cell_warning(*t.host_cpu_other_pct);
    const bool already = std::any_of(warnings->begin(), warnings->end(),
                                     [](const std::string& x) { return x.starts_with("the host was busy:"); });
    if (!already) warnings->push_back(w);
  }
  return true;
}
}  // namespace

std::string mark_busy_host(RunResult& r, double threshold_pct) {
  std::erase_if(r.warnings, [](const std::string& w) { return w.starts_with(kBusyHostWarningPrefix); });
  if (!server_shares_the_host(r)) return {};
  std::vector<std::string> names;
  double worst = 0;
  for (auto& row : r.prefill)
    if (row.status == CellStatus::Valid && mark(nullptr, row.telemetry, threshold_pct)) {
      names.push_back("prefill " + format_tokens(row.context));
      worst = std::max(worst, *row.telemetry.host_cpu_other_pct);
    }
  for (auto& cell : r.decode)
    if (cell.status == CellStatus::Valid && mark(&cell.warnings, cell.telemetry, threshold_pct)) {
      names.push_back(fmt::format("{} × {}", format_tokens(cell.context), cell.concurrency));
      worst = std::max(worst, *cell.telemetry.host_cpu_other_pct);
    }
  if (names.empty()) return {};
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string w = fmt::format(
      "{}: other processes than speedmatrix and the server used more than {:.0f}% of its CPU (up to {:.0f}%) during "
      "{}; those figures compete with that load and may not repeat",
      kBusyHostWarningPrefix, threshold_pct, worst, list);
  r.warnings.push_back(w);
  return w;
}

}  // namespace sm
