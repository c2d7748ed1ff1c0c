#pragma once
// A busy host: while a server on this machine was measured, other processes took a share of its
// CPU (docs/METRICS.md, "A busy host"). The server and the client then compete with them, and
// a run-to-run difference can be that load, not the server.
#include <string>

#include "result/result.h"

namespace sm {

/// Other processes' share of all CPUs above which a window is said to have run on a busy host:
/// measured on this project's 2-core machine (docs/performance.md, "A busy host").
constexpr double kBusyHostOtherCpuPct = 10.0;

/// Whether `result`'s server ran on the machine whose host CPU was sampled (probed or the
/// built-in engine): only then does other load compete with the server itself.
bool server_shares_the_host(const RunResult& result);

/// Marks every row and cell whose window ran on a busy host with a warning ("the host was busy:
/// other processes used 45% of its CPU during the window"), and returns the run's warning naming
/// them (empty when none). Idempotent: a resumed run's earlier marks are not repeated.
std::string mark_busy_host(RunResult& result, double threshold_pct = kBusyHostOtherCpuPct);

/// The start every run-level busy-host warning has (a resumed run replaces its earlier one).
inline constexpr std::string_view kBusyHostWarningPrefix = "the host was busy while measuring";

}  // namespace sm
