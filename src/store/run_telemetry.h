#pragma once
// What a run's GPU telemetry says at run level: whose GPUs were read, the run's best tokens per
// joule (its efficiency figure for the leaderboard) and which measurements were throttled.
// Worked out from the RunResult alone, so the stored summary and the run page agree.
// The figures and verdicts themselves are defined in docs/METRICS.md, "Telemetry".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result/result.h"

namespace sm::store {

/// Whose GPUs a run's readings are.
enum class GpuTelemetryScope : uint8_t {
  None,            ///< no GPU telemetry (not sampled, no NVML, no GPU, an older result)
  Server,          ///< the GPUs of the machine that ran the server: its efficiency and its clocks
  ClientSideOnly,  ///< the GPUs of the machine that ran speedmatrix, not the server's
};

/// "", "server", "client_side_only": the stored and listed form.
std::string_view to_string(GpuTelemetryScope scope);

/// The scope of a run's GPU readings. Server only when the run has GPU telemetry, does not say
/// client_side_only, and its hardware was probed on the machine that sampled (not declared for
/// another machine, unknown, simulated or a catalog prediction): otherwise the readings are of
/// a GPU that did not serve the run's tokens.
GpuTelemetryScope gpu_telemetry_scope(const RunResult& result);

/// How bad a throttle verdict is, in docs/METRICS.md's order (most serious first): thermal 4,
/// hw_slowdown 3, power_capped 2, clocks_below_max 1, ok 0; empty (no telemetry) -1. A verdict
/// this build does not know counts as 1.
int throttle_severity(std::string_view verdict);

/// A valid measurement whose verdict is not "ok".
struct ThrottledMeasurement {
  bool prefill = false;     ///< a prefill row (context only) rather than a decode cell
  int64_t context = 0;
  int64_t concurrency = 0;  ///< decode cells only
  std::string verdict;      ///< "power_capped", "thermal", "hw_slowdown", "clocks_below_max"
};

/// The run-level telemetry figures.
struct RunTelemetry {
  GpuTelemetryScope scope = GpuTelemetryScope::None;
  /// Highest tokens per joule of a valid decode cell; only when scope is Server (a client's
  /// GPU says nothing of the server's efficiency). Prefill rows (prompt tokens per joule) are
  /// a different quantity and are not compared with it.
  std::optional<double> best_tokens_per_joule;
  std::optional<int64_t> best_tokens_per_joule_context;      ///< that cell's context
  std::optional<int64_t> best_tokens_per_joule_concurrency;  ///< that cell's concurrency
  /// The worst verdict of the valid decode cells and prefill rows ("" when none has one), and
  /// every one of them that is not ok, decode cells first. Filled whatever the scope: a page
  /// says whose GPUs they are.
  std::string worst_throttle;
  int64_t measurements_with_verdict = 0;  ///< valid cells and rows that have a verdict
  std::vector<ThrottledMeasurement> throttled;
};

/// Works out the run-level figures of a result.
RunTelemetry summarize_run_telemetry(const RunResult& result);

}  // namespace sm::store
