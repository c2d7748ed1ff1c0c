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

/// Puts into the run's warnings one naming every valid row and cell whose window ran on a busy host
/// (other processes above `threshold_pct` of the CPU), replacing an earlier one (a resumed run),
/// and returns it (empty when none).
std::string busy_host_warning(RunResult& result, double threshold_pct = kBusyHostOtherCpuPct);

/// The start every run-level busy-host warning has (a resumed run replaces its earlier one).
inline constexpr std::string_view kBusyHostWarningPrefix = "the host was busy while measuring";

}  // namespace sm
