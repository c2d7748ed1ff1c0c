#pragma once
// Line charts as inline SVG, drawn in C++: no script, no library, nothing fetched. Colours come
// from CSS classes (c0…c7, axis, grid) so the page's light and dark themes apply to them.
#include <functional>
#include <string>
#include <vector>

namespace sm::report {

/// An SVG coordinate as the charts write it: one decimal ("12.5").
std::string svg_number(double v);

/// One point of a series.
struct ChartPoint {
  double x = 0;         ///< in the x axis' unit (tokens, requests)
  double y = 0;         ///< in its y axis' unit
  std::string tooltip;  ///< shown on hover (SVG <title>); e.g. "16K × 8: 812.0 tok/s"
  bool hollow = false;  ///< drawn as an open marker (the Pareto chart: a point off the frontier)
};

/// The shape of a series' point markers (the Pareto chart's overlay: one per run).
enum class Marker { Circle, Square, Diamond, Triangle };

/// One line of a chart.
struct ChartSeries {
  std::string name;                ///< legend text, e.g. "16K context"
  std::vector<ChartPoint> points;  ///< drawn in order
  int color = 0;                   ///< palette slot 0…7 (CSS class c0…c7)
  bool dashed = false;             ///< dashed line (e.g. the second quantity of a two-axis chart)
  bool right_axis = false;         ///< measured against the right y axis
  std::string end_label;           ///< drawn on the chart beside the last point (e.g. a target line's name)
  bool reference = false;          ///< a reference line (a target), not data: thin and dotted, no point markers
  Marker marker = Marker::Circle;  ///< the points' shape
};

/// A chart: x on a log2 or linear scale; y from zero, or on a log10 scale.
struct LineChart {
  std::string title;                            ///< accessible name of the figure
  std::string x_label;                          ///< e.g. "simultaneous requests"
  bool x_log2 = true;                           ///< log2 x scale (contexts and concurrency double)
  std::vector<double> x_ticks;                  ///< tick positions, in x units
  std::function<std::string(double)> x_format;  ///< tick text; default: the number
  std::string y_label;                          ///< left axis, e.g. "total tok/s"
  std::string y2_label;                         ///< right axis; empty: no right axis
  std::function<std::string(double)> y_format;  ///< tick text of both y axes; default: compact ("1.5K")
  bool y_log10 = false;  ///< log10 y scale with a tick at every decade the points span (points at or below
                         ///< 0 are left out); one y axis: right_axis series are drawn against it too
  double y2_scale = 0;  ///< > 0: a right axis reading the left one times this (per GPU on the left, per box on the
                        ///< right), labelled y2_label; no series of its own
  std::vector<ChartSeries> series;
};

/// The chart as an <svg> element (responsive: width 100%, fixed aspect ratio).
std::string render_svg(const LineChart& chart);

/// The chart's legend as an HTML list of coloured swatches; series of one name and colour (one
/// run's lines in an overlay) share an entry.
std::string render_legend(const LineChart& chart);

/// Tick text for rates and milliseconds: 950 -> "950", 1500 -> "1.5K", 20000 -> "20K".
std::string compact_number(double value);

/// Round step for about `count` ticks from 0 to `max`: 1, 2, 2.5 or 5 × 10^k.
double nice_step(double max, int count);

}  // namespace sm::report
