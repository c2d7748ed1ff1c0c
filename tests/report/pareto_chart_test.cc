// The Pareto chart (issue 34, point 2) in the HTML report, near the top with the users-at-a-speed
// table, and overlaid by run in `compare`.
#include "report/pareto_chart.h"

#include <gtest/gtest.h>

#include <set>

#include "report/golden.h"
#include "report/report.h"

namespace sm {
namespace {

size_t count(const std::string& text, const std::string& what, size_t from = 0, size_t to = std::string::npos) {
  size_t n = 0;
  for (size_t at = text.find(what, from); at != std::string::npos && at < to; at = text.find(what, at + 1)) ++n;
  return n;
}

// The <svg> of the figure with this id.
std::string figure_svg(const std::string& html, const std::string& id) {
  const size_t at = html.find("<figure id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const size_t begin = html.find("<svg", at), end = html.find("</svg>", at);
  return begin == std::string::npos || end == std::string::npos ? "" : html.substr(begin, end - begin);
}

size_t contexts_with_points(const RunResult& r) {
  std::set<int64_t> contexts;
  for (const auto& c : r.decode)
    if (c.status == CellStatus::Valid && c.total_tok_s && c.per_request_tok_s) contexts.insert(c.context);
  return contexts.size();
}

TEST(ParetoChart, OneLinePerContextNearTheTopOfTheHtmlReport) {
  const RunResult seed = test::seed_fixture();
  const std::string html = render_report(seed, ReportFormat::Html, {});
  const std::string svg = figure_svg(html, "pareto-chart");
  ASSERT_FALSE(svg.empty());
  const size_t lines = contexts_with_points(seed);
  ASSERT_GE(lines, 2u);
  EXPECT_EQ(count(svg, "<path d="), lines);     // one line per context
  EXPECT_EQ(count(svg, "<g class=\"series"), lines);
  EXPECT_GT(count(svg, "<circle"), lines);      // points along each
  EXPECT_NE(svg.find("tok/s per user"), std::string::npos);
  // The first screen: the headline, then users at a speed and the chart, before the warnings,
  // the hardware and the matrices.
  const size_t chart = html.find("id=\"pareto-chart\""), capacity = html.find("id=\"capacity-matrix\"");
  for (const char* later : {"id=\"warnings\"", "id=\"hardware\"", "id=\"prefill\"", "id=\"decode\""})
    if (html.find(later) != std::string::npos) {
      EXPECT_LT(chart, html.find(later)) << later;
      EXPECT_LT(capacity, html.find(later)) << later;
    }
  EXPECT_GT(capacity, html.find("id=\"headline\""));
}

TEST(ParetoChart, DominatedCellsAreHollowAndPerGpuWhenTheGpusAreKnown) {
  RunResult r;
  r.hardware.gpus.resize(2);
  auto cell = [](int64_t n, double per, double total) {
    DecodeCell c;
    c.context = 1024;
    c.concurrency = n;
    c.per_request_tok_s = per;
    c.total_tok_s = total;
    return c;
  };
  r.decode = {cell(1, 100, 100), cell(8, 50, 400), cell(16, 20, 320)};
  const report::LineChart chart = report::pareto_chart(r);
  ASSERT_EQ(chart.series.size(), 1u);
  ASSERT_EQ(chart.series[0].points.size(), 3u);
  EXPECT_DOUBLE_EQ(chart.series[0].points[1].y, 200);  // 400 tok/s on 2 GPUs
  EXPECT_DOUBLE_EQ(chart.series[0].points[1].x, 50);
  EXPECT_FALSE(chart.series[0].points[1].hollow);
  EXPECT_TRUE(chart.series[0].points[2].hollow);  // 16 requests: less of both than 8
  EXPECT_EQ(chart.y2_scale, 2);                   // the right axis reads per box
  const std::string svg = report::render_svg(chart);
  EXPECT_EQ(count(svg, "class=\"hollow\""), 1u);
  EXPECT_NE(svg.find("tok/s per box (2 GPUs)"), std::string::npos);
  // Per GPU 0..200 by 50 on the left; the right axis doubles them: 0..400 by 100.
  EXPECT_NE(svg.find(">200</text>"), std::string::npos);
  EXPECT_NE(svg.find(">300</text>"), std::string::npos);
  EXPECT_NE(svg.find(">400</text>"), std::string::npos);

  r.hardware.source = HardwareSource::Unknown;  // a server elsewhere: per box only
  const report::LineChart box = report::pareto_chart(r);
  EXPECT_DOUBLE_EQ(box.series[0].points[1].y, 400);
  EXPECT_EQ(box.y2_scale, 0);
  EXPECT_TRUE(box.y2_label.empty());
}

TEST(ParetoChart, CompareOverlaysTheRunsOneColourAndMarkerEach) {
  const std::vector<RunResult> runs{test::seed_fixture(), test::variant_fixture()};
  const std::string html = render_compare(runs, ReportFormat::Html, {});
  const std::string svg = figure_svg(html, "pareto-chart");
  ASSERT_FALSE(svg.empty());
  const size_t lines = contexts_with_points(runs[0]) + contexts_with_points(runs[1]);
  EXPECT_EQ(count(svg, "<path d="), lines);
  // Run A's lines in colour 0 with circles, run B's in colour 1 with squares.
  EXPECT_EQ(count(svg, "<g class=\"series c0"), contexts_with_points(runs[0]));
  EXPECT_EQ(count(svg, "<g class=\"series c1"), contexts_with_points(runs[1]));
  const size_t b = svg.find("<g class=\"series c1");
  EXPECT_EQ(count(svg, "<rect", 0, b), 0u);
  EXPECT_GT(count(svg, "<rect", b), 0u);
  EXPECT_EQ(count(svg, "<circle", b), 0u);
  // The legend names each run once, however many lines it has.
  const size_t figure = html.find("<figure id=\"pareto-chart\"");
  const size_t legend = html.find("<ul class=\"legend\">", figure);
  const size_t legend_end = html.find("</ul>", legend);
  EXPECT_EQ(count(html, "<li>", legend, legend_end), 2u);
  EXPECT_NE(html.find("A: ", legend), std::string::npos);
}

}  // namespace
}  // namespace sm
