#pragma once
// The report of a request-rate sweep (a RunResult with a `sweep` section): one row per rate with
// offered and achieved rate, output tok/s, TTFT / TPOT / E2E percentiles, the share within the
// SLOs and goodput; the HTML page adds latency-against-rate charts that mark the highest rate
// at which the SLO share was met. render_report() and write_run_reports() call these.
#include <string>

#include "report/report.h"
#include "report/svg_chart.h"
#include "result/result.h"

namespace sm::report {

/// The sweep in `format` (Term, Html, Markdown, Csv). `result.sweep` must be set.
std::string render_sweep(const RunResult& result, ReportFormat format, const RenderOptions& options);

/// The latency chart's y axis is log10 when its TTFT and E2E figures span more than this ratio
/// (max ÷ min): a saturated rate's seconds beside an idle rate's milliseconds (docs/METRICS.md).
inline constexpr double kLatencyLogSpan = 100;

/// The latency-against-rate chart (TTFT, TPOT and E2E p50 and p99; the SLO targets as labelled
/// horizontal lines; the SLO-rate marker as a vertical dashed line), exposed for tests. Linear,
/// TPOT on the right axis; log (one axis, decade ticks) past kLatencyLogSpan.
LineChart sweep_latency_chart(const SweepInfo& sweep);

}  // namespace sm::report
