#include "bench/busy_host.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/units.h"

namespace sm {

bool server_shares_the_host(const RunResult& r) {
  return r.hardware.source == HardwareSource::Probed || r.hardware.source == HardwareSource::Simulated;
}

namespace {
bool busy(const CellTelemetry& t, double threshold_pct) {
  return t.host_cpu_other_pct && *t.host_cpu_other_pct > threshold_pct;
}
}  // namespace

std::string busy_host_warning(RunResult& r, double threshold_pct) {
  std::erase_if(r.warnings, [](const std::string& w) { return w.starts_with(kBusyHostWarningPrefix); });
  if (!server_shares_the_host(r)) return {};
  std::vector<std::string> names;
  double worst = 0;
  for (auto& row : r.prefill)
    if (row.status == CellStatus::Valid && busy(row.telemetry, threshold_pct)) {
      names.push_back("prefill " + format_tokens(row.context));
      worst = std::max(worst, *row.telemetry.host_cpu_other_pct);
    }
  for (auto& cell : r.decode)
    if (cell.status == CellStatus::Valid && busy(cell.telemetry, threshold_pct)) {
      names.push_back(fmt::format("{} × {}", format_tokens(cell.context), cell.concurrency));
      worst = std::max(worst, *cell.telemetry.host_cpu_other_pct);
    }
  if (names.empty()) return {};
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string w = fmt::format(
      "{}: other processes than speedmatrix and the server used more than {:.0f}% of its CPU (up to {:.0f}%) during "
      "{}; those figures competed with that load and may not repeat (each window's share: host_cpu_other_pct)",
      kBusyHostWarningPrefix, threshold_pct, worst, list);
  r.warnings.push_back(w);
  return w;
}

}  // namespace sm
