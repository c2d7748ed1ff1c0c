// The sweep's printers: the latency chart marks the highest rate within the SLO, the terminal
// tables fit 80 columns, and every format carries every rate.
#include "report/sweep_report.h"

#include <gtest/gtest.h>

#include <sstream>

#include "report/term_text.h"

namespace sm {
namespace {

RunResult sample_sweep() {
  RunResult r;
  r.kind = "simulated";
  r.engine.model = "m";
  r.engine.kind = "vllm";
  SweepInfo s;
  s.rates = "1,2,4";
  s.window_s = 10;
  s.input_len_mean = 1024;
  s.input_len_sd = 256;
  s.output_len_mean = 128;
  s.slo_ttft_ms = 500;
  for (double rate : {4.0, 1.0, 2.0}) {
    SweepPoint p;
    p.rate_rps = rate;
    p.offered_rps = rate * 1.02;
    p.requests = static_cast<int64_t>(rate * 10);
    p.completed = p.requests;
    p.achieved_rps = rate * 0.97;
    p.output_tok_s = rate * 120;
    p.ttft_ms = Percentiles{100 * rate + 50, 150 * rate, 200 * rate};
    p.tpot_ms = Percentiles{20, 22, 25.5};
    p.e2e_ms = Percentiles{2600 * rate, 2800 * rate, 3000 * rate};
    p.slo_met_fraction = rate < 3 ? 0.95 : 0.4;
    p.goodput_rps = rate * *p.slo_met_fraction;
    p.saturated = rate > 3;
    s.points.push_back(p);
  }
  s.max_rate_within_slo_rps = 2;
  s.saturation_rps = 3.5;
  r.sweep = s;
  return r;
}

TEST(SweepReport, ChartMarksTheHighestRateWithinTheSlo) {
  const RunResult r = sample_sweep();
  const report::LineChart chart = report::sweep_latency_chart(*r.sweep);
  EXPECT_FALSE(chart.x_log2);
  // Round ticks from 0 to the highest rate, however odd the rates are.
  EXPECT_EQ(chart.x_ticks, (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(chart.x_format(2.5), "2.5");
  EXPECT_EQ(chart.y2_label, "TPOT ms");
  EXPECT_FALSE(chart.y_log10);  // 150 ms to 12 s: under two decades
  ASSERT_FALSE(chart.series.empty());
  const report::ChartSeries& marker = chart.series.back();
  EXPECT_NE(marker.name.find("highest rate with 90% within SLO: 2/s"), std::string::npos) << marker.name;
  ASSERT_EQ(marker.points.size(), 2u);
  EXPECT_EQ(marker.points[0].x, 2);
  EXPECT_EQ(marker.points[1].x, 2);
  EXPECT_EQ(marker.points[1].y, 12000);  // up to the highest latency drawn (E2E p99 at 4/s)
  // TTFT p50 by rate, in rate order.
  EXPECT_EQ(chart.series[0].name, "TTFT p50");
  for (const auto& series : chart.series) EXPECT_EQ(series.right_axis, series.name.starts_with("TPOT")) << series.name;
  ASSERT_EQ(chart.series[0].points.size(), 3u);
  EXPECT_EQ(chart.series[0].points[2].y, 450);
  const std::string svg = report::render_svg(chart);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
}

TEST(SweepReport, EveryFormatCarriesEveryRate) {
  const RunResult r = sample_sweep();
  const std::string term = render_report(r, ReportFormat::Term, {});
  std::istringstream lines(term);
  for (std::string line; std::getline(lines, line);)
    EXPECT_LE(report::display_width(line), 80u) << line;
  EXPECT_NE(term.find("Saturation rate: 3.5 requests/s"), std::string::npos) << term;
  EXPECT_NE(term.find("Highest rate with 90% of requests within the SLO: 2 requests/s"), std::string::npos);
  EXPECT_NE(term.find("450 / 600 / 800"), std::string::npos);  // TTFT at 4/s
  EXPECT_NE(term.find("Prompt 1024 ± 256 tokens (normal, at least 1); output 128 tokens"), std::string::npos);
  const std::string md = render_report(r, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("| Rate/s |"), std::string::npos);
  EXPECT_NE(md.find("TTFT ≤ 500 ms"), std::string::npos) << md;
  const std::string html = render_report(r, ReportFormat::Html, {});
  EXPECT_NE(html.find("id=\"sweep-table\""), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  const std::string csv = render_report(r, ReportFormat::Csv, {});
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);
  EXPECT_NE(csv.find("\n1,false,valid,"), std::string::npos) << csv;  // sorted by rate
}

// Issue 31 point 6: the sweep's report names the machine and the engine, as the matrix's does,
// in every printer.
TEST(SweepReport, EveryPrinterNamesTheHardwareAndTheEngine) {
  RunResult r = sample_sweep();
  r.hardware.source = HardwareSource::Probed;
  r.hardware.gpus.push_back(GpuInfo{});
  r.hardware.gpus.back().name = "NVIDIA H100 80GB HBM3";
  r.hardware.cpu_model = "AMD EPYC 9654 96-Core Processor";
  r.engine.version = "0.6.3.post1";
  r.engine.quantization = "awq";
  for (ReportFormat format : {ReportFormat::Term, ReportFormat::Markdown, ReportFormat::Html}) {
    const std::string text = render_report(r, format, {});
    EXPECT_NE(text.find("Hardware"), std::string::npos) << text;
    EXPECT_NE(text.find("H100 80GB HBM3"), std::string::npos) << text;
    EXPECT_NE(text.find("AMD EPYC 9654"), std::string::npos) << text;
    EXPECT_NE(text.find("0.6.3.post1"), std::string::npos) << text;
    EXPECT_NE(text.find("awq"), std::string::npos) << text;
  }
  EXPECT_NE(render_report(r, ReportFormat::Html, {}).find("<section id=\"hardware\">"), std::string::npos);
}

// Goodput as a sentence, not only a column: the best rate that kept up (4/s saturated).
TEST(SweepReport, GoodputIsAFindingInEveryPrinter) {
  RunResult r = sample_sweep();
  const std::string line = "Goodput: 1.9 requests/s within the SLO at 2 requests/s offered (95% of requests)";
  for (ReportFormat format : {ReportFormat::Term, ReportFormat::Markdown, ReportFormat::Html})
    EXPECT_NE(render_report(r, format, {}).find(line), std::string::npos) << line;
  r.sweep->slo_ttft_ms.reset();
  EXPECT_NE(render_report(r, ReportFormat::Term, {}).find("Goodput: 1.9 completed requests/s at 2 requests/s offered "
                                                          "(no SLO given"),
            std::string::npos);
  // Every rate saturated: the best of them, said so.
  for (auto& p : r.sweep->points) p.saturated = true;
  EXPECT_NE(render_report(r, ReportFormat::Term, {}).find("(no SLO given: every completed request counts); every rate "
                                                          "saturated the server"),
            std::string::npos);
}

// Latencies over more than two decades (60 ms to 30 s) get a log axis with a tick per decade,
// TPOT on the same axis; under that the axis stays linear (the test above).
TEST(SweepReport, LatenciesSpanningDecadesGetALogAxis) {
  RunResult r = sample_sweep();
  for (auto& p : r.sweep->points) {
    if (p.rate_rps == 1) p.ttft_ms->p50 = 60;
    if (p.rate_rps == 4) p.e2e_ms = Percentiles{20000, 25000, 30000};
  }
  const report::LineChart chart = report::sweep_latency_chart(*r.sweep);
  EXPECT_TRUE(chart.y_log10);
  EXPECT_NE(chart.y_label.find("log scale"), std::string::npos) << chart.y_label;
  EXPECT_EQ(chart.y2_label, "");
  for (const auto& series : chart.series) EXPECT_FALSE(series.right_axis) << series.name;
  const std::string svg = report::render_svg(chart);
  // TPOT's 20 ms to E2E's 30 s: decades 10 ms … 100 s.
  for (const char* tick : {">10</text>", ">100</text>", ">1K</text>", ">10K</text>", ">100K</text>"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  size_t decades = 0;
  for (size_t at = svg.find("class=\"grid decade\""); at != std::string::npos; at = svg.find("class=\"grid decade\"", at + 1))
    ++decades;
  EXPECT_EQ(decades, 5u);
  EXPECT_EQ(report::render_svg(report::sweep_latency_chart(*sample_sweep().sweep)).find("decade"), std::string::npos);
}

// --slo-ttft and --slo-tpot: a labelled horizontal line at each target, on its figure's axis.
TEST(SweepReport, SloTargetsAreLinesOnTheLatencyChart) {
  RunResult r = sample_sweep();
  r.sweep->slo_tpot_ms = 30;
  const report::LineChart chart = report::sweep_latency_chart(*r.sweep);
  auto find = [&](std::string_view name) -> const report::ChartSeries* {
    for (const auto& series : chart.series)
      if (series.name == name) return &series;
    return nullptr;
  };
  const report::ChartSeries* ttft = find("TTFT SLO: 500 ms");
  const report::ChartSeries* tpot = find("TPOT SLO: 30 ms");
  ASSERT_TRUE(ttft && tpot);
  ASSERT_EQ(ttft->points.size(), 2u);
  EXPECT_EQ(ttft->points[0].x, 1);  // across the rates, level at the target
  EXPECT_EQ(ttft->points[1].x, 4);
  EXPECT_EQ(ttft->points[0].y, 500);
  EXPECT_EQ(ttft->points[1].y, 500);
  EXPECT_TRUE(ttft->reference && tpot->reference);  // drawn thin and dotted, no point markers
  EXPECT_FALSE(ttft->right_axis);
  EXPECT_TRUE(tpot->right_axis);  // TPOT's axis
  EXPECT_EQ(tpot->points[1].y, 30);
  const std::string svg = report::render_svg(chart);
  EXPECT_NE(svg.find(">TTFT SLO: 500 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find(">TPOT SLO: 30 ms</text>"), std::string::npos);
  // No targets, no lines.
  r.sweep->slo_ttft_ms.reset();
  r.sweep->slo_tpot_ms.reset();
  for (const auto& series : report::sweep_latency_chart(*r.sweep).series)
    EXPECT_FALSE(series.name.starts_with("TTFT SLO") || series.name.starts_with("TPOT SLO")) << series.name;
}

// A translator (the results site's) reaches the sweep's report too; without one it is English.
TEST(SweepReport, HtmlSpeaksTheTranslatorsLanguage) {
  const RunResult r = sample_sweep();
  RenderOptions options;
  options.translate = [](std::string_view msgid) -> std::string {
    if (msgid == "Every rate") return "Alle Raten";
    if (msgid == "Within SLO") return "Innerhalb des SLO";
    if (msgid == "Request-rate sweep: {} ({}{})") return "Raten-Sweep: {0} ({1}{2})";
    return std::string(msgid);
  };
  const std::string html = render_report(r, ReportFormat::Html, options);
  EXPECT_NE(html.find("<h2>Alle Raten</h2>"), std::string::npos);
  EXPECT_NE(html.find(">Innerhalb des SLO</th>"), std::string::npos);
  EXPECT_NE(html.find("<h1 id=\"title\">Raten-Sweep: "), std::string::npos);
  EXPECT_EQ(html.find("<h2>Every rate</h2>"), std::string::npos);
  const std::string english = render_report(r, ReportFormat::Html, {});
  EXPECT_NE(english.find("<h2>Every rate</h2>"), std::string::npos);
  EXPECT_NE(english.find("<h1 id=\"title\">Request-rate sweep: "), std::string::npos);
}

// A rate whose output looped is named in every printer and left out of the goodput line; on a
// synthetic model (loops by construction) it is a note and its goodput counts.
TEST(SweepReport, RatesWhoseOutputLoopsAreNamed) {
  RunResult r = sample_sweep();
  for (auto& p : r.sweep->points) p.saturated = false;
  OutputCheckSummary loop;
  loop.verdict = "loop";
  loop.requests = 20;
  loop.repeat = 20;
  loop.flaw = "repeat";
  loop.excerpt = "]]]]";
  for (auto& p : r.sweep->points)
    if (p.rate_rps == 2) p.output_check = loop;
  const std::string named = "2 requests/s: the output loops: 20 of 20 requests repeat";
  RenderOptions wide;
  wide.width_columns = 400;  // the terminal's findings unwrapped
  for (ReportFormat format : {ReportFormat::Term, ReportFormat::Markdown, ReportFormat::Html}) {
    const std::string text = render_report(r, format, wide);
    EXPECT_NE(text.find(named), std::string::npos) << text;
    EXPECT_NE(text.find("the goodput line leaves this rate out"), std::string::npos);
    EXPECT_NE(text.find("output loops"), std::string::npos);  // the rate's note in the table
    // 1/s (goodput 0.95) is the best that stands; 2/s (1.9) looped, 4/s (1.6) is not within the SLO share but counts.
    EXPECT_EQ(text.find("Goodput: 1.9 "), std::string::npos) << text;
    EXPECT_NE(text.find("Goodput: 1.6 requests/s"), std::string::npos) << text;
  }
  r.engine.synthetic_model = true;
  const std::string text = render_report(r, ReportFormat::Term, wide);
  EXPECT_NE(text.find("Note: " + named), std::string::npos) << text;
  EXPECT_NE(text.find("Goodput: 1.9 "), std::string::npos) << text;
}

}  // namespace
}  // namespace sm
