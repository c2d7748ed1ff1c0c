#include "report/pareto_chart.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

#include "core/units.h"
#include "metrics/pareto.h"
#include "report/cell_format.h"
#include "report/html_escape.h"
#include "report/translate.h"

namespace sm::report {

namespace {

constexpr int kXTicks = 5;
constexpr Marker kRunMarkers[] = {Marker::Circle, Marker::Square, Marker::Diamond, Marker::Triangle};

std::string point_tooltip(const ParetoPoint& p, std::optional<int64_t> gpus, std::string_view prefix) {
  std::string text = p.concurrency == 1
                         ? trf("{} context × {} request: {} tok/s each, {} tok/s in all", format_tokens(p.context),
                               p.concurrency, format_tok_s(p.per_request_tok_s), format_tok_s(p.total_tok_s))
                         : trf("{} context × {} requests: {} tok/s each, {} tok/s in all", format_tokens(p.context),
                               p.concurrency, format_tok_s(p.per_request_tok_s), format_tok_s(p.total_tok_s));
  if (gpus && *gpus > 1)
    text += trf(" ({} per GPU)", format_tok_s(p.total_tok_s / static_cast<double>(*gpus)));
  if (!p.frontier) text += tr(" · off the frontier");
  return prefix.empty() ? text : std::string(prefix) + ": " + text;
}

// The axes every Pareto chart shares; the x ticks from zero to the fastest request's rate.
LineChart empty_chart(double max_per_request) {
  LineChart chart;
  chart.title = tr("Pareto chart: total tok/s against tok/s per user");
  chart.x_label = tr("tok/s per user (each request's rate)");
  chart.x_log2 = false;
  chart.x_format = compact_number;
  const double step = nice_step(max_per_request, kXTicks);
  for (int i = 0; i * step <= max_per_request + step - 1e-9 && i <= 2 * kXTicks; ++i) chart.x_ticks.push_back(step * i);
  return chart;
}

ChartSeries line_series(const ParetoLine& line, std::optional<int64_t> divisor_gpus, std::optional<int64_t> gpus,
                        std::string_view prefix) {
  ChartSeries s;
  const double divisor = divisor_gpus ? static_cast<double>(*divisor_gpus) : 1.0;
  for (const ParetoPoint& p : line.points)
    s.points.push_back({p.per_request_tok_s, p.total_tok_s / divisor, point_tooltip(p, gpus, prefix), !p.frontier});
  return s;
}

double max_rate(const std::vector<ParetoLine>& lines) {
  double m = 0;
  for (const auto& l : lines)
    for (const auto& p : l.points) m = std::max(m, p.per_request_tok_s);
  return m;
}

}  // namespace

LineChart pareto_chart(const RunResult& run) {
  const std::vector<ParetoLine> lines = pareto_lines(run);
  LineChart chart = empty_chart(max_rate(lines));
  const std::optional<int64_t> gpus = server_gpu_count(run);
  if (gpus && *gpus > 1) {
    chart.y_label = tr("total tok/s per GPU");
    chart.y2_label = trf("tok/s per box ({} GPUs)", *gpus);
    chart.y2_scale = static_cast<double>(*gpus);
  } else {
    chart.y_label = gpus ? tr("total tok/s (one GPU: per GPU = per box)") : tr("total tok/s per box");
  }
  int color = 0;
  for (const ParetoLine& line : lines) {
    ChartSeries s = line_series(line, gpus, gpus, "");
    s.name = context_label(line.context);
    s.color = color++;
    chart.series.push_back(std::move(s));
  }
  return chart;
}

LineChart pareto_overlay_chart(const std::vector<RunResult>& runs, const std::vector<std::string>& names) {
  std::vector<std::vector<ParetoLine>> lines;
  std::vector<std::optional<int64_t>> gpus;
  double max_per_request = 0;
  bool all_known = !runs.empty();
  for (const RunResult& r : runs) {
    lines.push_back(pareto_lines(r));
    gpus.push_back(server_gpu_count(r));
    all_known = all_known && gpus.back().has_value();
    max_per_request = std::max(max_per_request, max_rate(lines.back()));
  }
  LineChart chart = empty_chart(max_per_request);
  chart.y_label = all_known ? tr("total tok/s per GPU") : tr("total tok/s per box");
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string name = i < names.size() ? names[i] : fmt::format("{}", i + 1);
    for (const ParetoLine& line : lines[i]) {
      ChartSeries s = line_series(line, all_known ? gpus[i] : std::nullopt, gpus[i], name);
      s.name = name;
      s.color = static_cast<int>(i % 8);
      s.marker = kRunMarkers[i % std::size(kRunMarkers)];
      s.end_label = format_tokens(line.context);
      chart.series.push_back(std::move(s));
    }
  }
  return chart;
}

std::string pareto_figure_html(const LineChart& chart) {
  if (chart.series.empty()) return "";
  return fmt::format(
      "<figure id=\"pareto-chart\">\n<figcaption>{}</figcaption>\n{}{}<p class=\"caption\">{}</p>\n</figure>\n",
      html_escape(chart.title), render_svg(chart), render_legend(chart),
      html_escape(tr("one line per context, fewer to more simultaneous requests from right to left; a filled point is "
                     "on the frontier (no other cell of its context gives more of both), a hollow one is not; only "
                     "valid cells whose output passed the checks count")));
}

}  // namespace sm::report
