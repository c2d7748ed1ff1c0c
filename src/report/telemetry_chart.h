#pragma once
// The HTML report's time chart: GPU power, SM clock and tokens/s over the run, drawn from the
// run's raw telemetry series (telemetry.jsonl), with every measured window (decode cell, prefill
// request) shaded, bounded and labelled. Inline SVG, no script, like svg_chart.h; a long series
// is averaged into time buckets so the page stays small.
//
//   Timeline t = build_timeline(series, result);
//   std::string html = render_timeline_html(t);  // "" when there is nothing to draw
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result/result.h"
#include "telemetry/telemetry_series.h"

namespace sm::report {

/// Most points a line of the chart gets; longer series are averaged into this many time buckets.
inline constexpr size_t kTimelineMaxPoints = 480;

struct TimelinePoint {
  double t_s = 0;    ///< seconds since the series' start
  double value = 0;  ///< in the line's unit
};

/// A measured window as the chart marks it.
struct TimelineWindow {
  double begin_s = 0;           ///< seconds since the series' start
  double end_s = 0;
  std::string phase;            ///< "decode" or "prefill"
  std::string label;            ///< "16K × 8" (decode), "8K prefill"
  std::optional<double> tok_s;  ///< the mark's tokens ÷ its length (decode: output, prefill: prompt tokens)
  std::string tooltip;          ///< "Decode 16K × 8 · 10.0 s · 812.0 tok/s · 333 W · 1,755 MHz · Thermal"
};

/// What the chart draws, worked out from the series (tests read this; the SVG only lays it out).
struct Timeline {
  double duration_s = 0;                   ///< the last stamp, seconds since the start
  double bucket_s = 0;                     ///< 0: every sample is a point; else a point is the mean of this long
  double gap_s = 0;                        ///< a line breaks where two points are further apart than this
  size_t gpu_count = 0;                    ///< most GPUs in one sample
  std::vector<TimelinePoint> power_w;      ///< board power summed over the GPUs
  std::vector<TimelinePoint> sm_clock_mhz; ///< SM clock, mean over the GPUs
  std::vector<TimelineWindow> windows;     ///< in time order
  std::optional<double> power_limit_w;     ///< the GPUs' limits summed (reference line)
  std::optional<double> sm_clock_max_mhz;  ///< the GPUs' maximum SM clocks, mean (reference line)
  std::vector<std::string> notes;          ///< said under the chart's caption (readings left out, resumes)

  bool empty() const { return power_w.empty() && sm_clock_mhz.empty() && windows.empty(); }
};

/// The chart's content. `result` names the windows' cells and gives the reference lines (its
/// TelemetryInfo) and each window's figures for the tooltips. GPU readings of the client's machine
/// (TelemetryInfo::client_side_only) are left out, as they are of the cells.
Timeline build_timeline(const TelemetrySeries& series, const RunResult& result,
                        size_t max_points = kTimelineMaxPoints);

/// The chart as <figure id="telemetry-chart"> (caption, SVG, legend); "" when `timeline` is empty.
std::string render_timeline_html(const Timeline& timeline);

/// The CSS the chart needs; a page adds it only when it shows the chart.
std::string_view timeline_style();

}  // namespace sm::report
