#pragma once
// The summary of `run --power-limits` (docs/METRICS.md, "Power-limit sweeps"): the same matrix
// measured at each GPU power limit, tokens per joule against output tok/s — whether a lower limit
// pays. Each limit's run keeps its own folder and reports; this is the page over them.
#include <string>
#include <vector>

#include "result/result.h"

namespace sm::report {

/// One limit's run: the limit asked for and the run measured under it.
struct PowerLimitRun {
  double limit_w = 0;
  RunResult result;
};

/// The limit the server's GPUs reported in force during `run` (telemetry's enforced limit of
/// each server GPU at the run's start — every GPU in files that predate the choice —; the smallest
/// when they differ); std::nullopt without GPU telemetry.
std::optional<double> enforced_limit_w(const RunResult& run);

/// The sweep as Markdown: a table by limit (the limit the GPUs reported, the best output tok/s and
/// its tok/J, the most tok/J and its tok/s) and one of every valid cell at every limit, with notes
/// where a GPU did not report the limit asked for or no energy was read.
std::string power_limits_markdown(const std::vector<PowerLimitRun>& runs);

/// The same as an HTML page, with a chart of tokens per joule (y) against output tok/s (x): one
/// line per limit through its cells, fastest last.
std::string power_limits_html(const std::vector<PowerLimitRun>& runs);

}  // namespace sm::report
