#pragma once
// The Pareto chart (docs/METRICS.md, "Pareto chart"): total output tok/s against the tok/s each
// request sees, one line per context (metrics/pareto.h), drawn by svg_chart. Points off the
// frontier are hollow. One run: per GPU on the left axis and per box on the right when the run
// knows its GPUs, else per box. Several runs (compare): one colour and marker per run, each line
// labelled with its context; per GPU when every run knows its GPUs, else per box.
#include <string>
#include <vector>

#include "report/svg_chart.h"
#include "result/result.h"

namespace sm::report {

/// The run's chart; no series when no cell counts.
LineChart pareto_chart(const RunResult& run);

/// The runs overlaid; `names` (one per run, e.g. "A") name their legend entries.
LineChart pareto_overlay_chart(const std::vector<RunResult>& runs, const std::vector<std::string>& names);

/// The chart as the HTML report's figure (id "pareto-chart") with a caption saying what counts;
/// "" when it has no series.
std::string pareto_figure_html(const LineChart& chart);

}  // namespace sm::report
