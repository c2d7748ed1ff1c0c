// The HTML report's time chart: what it draws from a telemetry series (lines, windows, tokens/s,
// downsampling, gaps) and that the report shows it only when the run folder has a series.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "report/golden.h"
#include "report/report.h"
#include "report/result_input.h"
#include "report/telemetry_chart.h"

namespace sm {
namespace {

constexpr int64_t kSec = 1'000'000'000;
constexpr int64_t kT0 = 7 * kSec;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TelemetrySeries fixture_series() {
  auto series = read_telemetry_file(test::telemetry_run_dir() + "/telemetry.jsonl");
  EXPECT_TRUE(series.has_value());
  return series ? *series : TelemetrySeries{};
}

GpuSample gpu_at(double t_s, std::vector<std::pair<double, double>> power_clock) {
  GpuSample s{kT0 + static_cast<int64_t>(t_s * kSec), {}};
  int index = 0;
  for (auto [power, clock] : power_clock) {
    GpuReading g;
    g.index = index++;
    g.power_w = power;
    g.sm_clock_mhz = clock;
    s.gpus.push_back(g);
  }
  return s;
}

TEST(TelemetryChart, FixtureTimeline) {
  const RunResult result = test::telemetry_fixture();
  report::Timeline t = report::build_timeline(fixture_series(), result);
  EXPECT_DOUBLE_EQ(t.duration_s, 72.0);
  EXPECT_EQ(t.bucket_s, 0.0);  // 73 samples: every one drawn
  EXPECT_EQ(t.power_w.size(), 73u);
  EXPECT_EQ(t.sm_clock_mhz.size(), 73u);
  EXPECT_DOUBLE_EQ(t.power_w.front().t_s, 0.0);
  EXPECT_DOUBLE_EQ(t.power_w.front().value, 34.0);
  EXPECT_EQ(t.gpu_count, 1u);
  EXPECT_EQ(t.power_limit_w, 350.0);
  EXPECT_EQ(t.sm_clock_max_mhz, 2100.0);

  ASSERT_EQ(t.windows.size(), 7u);
  EXPECT_EQ(t.windows[0].label, "8K prefill");
  EXPECT_EQ(t.windows[0].phase, "prefill");
  EXPECT_DOUBLE_EQ(t.windows[0].begin_s, 2.0);
  EXPECT_NEAR(t.windows[0].end_s, 2.773, 1e-9);
  EXPECT_NEAR(*t.windows[0].tok_s, 8192 / 0.773, 1e-6);  // prompt tokens ÷ the request
  const report::TimelineWindow& w = t.windows[6];
  EXPECT_EQ(w.label, "16K × 8");
  EXPECT_DOUBLE_EQ(w.begin_s, 59.0);
  EXPECT_DOUBLE_EQ(w.end_s, 69.0);
  EXPECT_DOUBLE_EQ(*w.tok_s, 812.0);  // 8,120 output tokens ÷ 10 s
  EXPECT_EQ(w.tooltip, "Decode 16K × 8 · 10.0 s · 812.0 tok/s · 333 W · 1,755 MHz · 2.44 tokens/J · Thermal");
}

TEST(TelemetryChart, SumsPowerAndAveragesClocksOverGpus) {
  TelemetrySeries s;
  s.start_t_ns = kT0;
  s.gpu = {gpu_at(0, {{100, 1000}, {200, 2000}}), gpu_at(1, {{150, 1200}, {250, 1400}})};
  RunResult r;
  r.telemetry = TelemetryInfo{};
  r.telemetry->gpus = {{0, "A", 2100.0, 9000.0, 300.0, ""}, {1, "B", 1900.0, 9000.0, 250.0, ""}};
  report::Timeline t = report::build_timeline(s, r);
  ASSERT_EQ(t.power_w.size(), 2u);
  EXPECT_DOUBLE_EQ(t.power_w[0].value, 300.0);
  EXPECT_DOUBLE_EQ(t.power_w[1].value, 400.0);
  EXPECT_DOUBLE_EQ(t.sm_clock_mhz[0].value, 1500.0);
  EXPECT_DOUBLE_EQ(t.sm_clock_mhz[1].value, 1300.0);
  EXPECT_EQ(t.gpu_count, 2u);
  EXPECT_EQ(t.power_limit_w, 550.0);
  EXPECT_EQ(t.sm_clock_max_mhz, 2000.0);
  EXPECT_NE(report::render_timeline_html(t).find("sum over 2 GPUs"), std::string::npos);

  // No TelemetryInfo (an older result): the limit the first reading saw, no clock maximum.
  s.gpu[0].gpus[0].power_limit_w = 300.0;
  s.gpu[0].gpus[1].power_limit_w = 350.0;
  t = report::build_timeline(s, RunResult{});
  EXPECT_EQ(t.power_limit_w, 650.0);
  EXPECT_FALSE(t.sm_clock_max_mhz);
}

TEST(TelemetryChart, LongSeriesAreAveragedIntoBuckets) {
  // Three hours at 0.5 s: 21,600 samples alternating 100 W and 300 W.
  TelemetrySeries s;
  s.start_t_ns = kT0;
  for (int i = 0; i < 21'600; ++i) s.gpu.push_back(gpu_at(i * 0.5, {{i % 2 ? 300.0 : 100.0, 1800.0}}));
  for (int i = 0; i < 30; ++i)
    s.windows.push_back({kT0 + (i * 360 + 5) * kSec, kT0 + (i * 360 + 35) * kSec, "decode", 16384, 8, 24'000});
  RunResult r;
  report::Timeline t = report::build_timeline(s, r);
  EXPECT_GT(t.bucket_s, 0.5);
  EXPECT_LE(t.power_w.size(), report::kTimelineMaxPoints);
  EXPECT_GE(t.power_w.size(), report::kTimelineMaxPoints - 1);
  for (const auto& p : t.power_w) EXPECT_NEAR(p.value, 200.0, 5.0);  // a mean, not 100 or 300
  EXPECT_EQ(t.windows.size(), 30u);
  EXPECT_DOUBLE_EQ(*t.windows[0].tok_s, 800.0);
  std::string html = report::render_timeline_html(t);
  EXPECT_NE(html.find("Each point is the mean of 22.5 s of samples."), std::string::npos);
  EXPECT_LT(html.size(), 60'000u) << "three hours of samples must not make a large page";
  EXPECT_NE(html.find(">1:00:00<"), std::string::npos);  // the time axis in h:mm:ss
}

TEST(TelemetryChart, LinesBreakWhereSamplingStopped) {
  TelemetrySeries s;
  s.start_t_ns = kT0;
  s.interval_s = 0.5;
  for (double t : {0.0, 0.5, 1.0, 1.5, 10.0, 10.5, 11.0}) s.gpu.push_back(gpu_at(t, {{200.0, 1800.0}}));
  report::Timeline t = report::build_timeline(s, RunResult{});
  std::string html = report::render_timeline_html(t);
  size_t at = html.find("<g class=\"series c1\"><path d=\"");
  ASSERT_NE(at, std::string::npos);
  std::string d = html.substr(at, html.find('"', at + 32) - at);
  EXPECT_EQ(count(d, "M"), 2u) << d;
}

TEST(TelemetryChart, WindowsAreShadedBoundedAndLabelled) {
  std::string html = report::render_timeline_html(report::build_timeline(fixture_series(), test::telemetry_fixture()));
  EXPECT_EQ(count(html, "id=\"telemetry-chart\""), 1u);
  EXPECT_EQ(count(html, "<g class=\"window decode\">"), 5u);
  EXPECT_EQ(count(html, "<g class=\"window prefill\">"), 2u);
  EXPECT_EQ(count(html, "<line class=\"edge\""), 14u);  // a begin and an end per window
  for (const char* label : {">8K prefill</text>", ">16K prefill</text>", ">0 × 1</text>", ">0 × 8</text>",
                            ">0 × 64</text>", ">16K × 1</text>", ">16K × 8</text>"})
    EXPECT_EQ(count(html, label), 1u) << label;
  for (const char* text : {"GPU power (W)", "SM clock (MHz)", "Output tok/s (decode windows)", "power limit 350 W",
                           "max 2,100 MHz", "<title>Decode 0 × 64 · 10.0 s · 3,263.4 tok/s · 348 W",
                           ">70 s</text>"})
    EXPECT_NE(html.find(text), std::string::npos) << text;
  EXPECT_EQ(count(html, "<path d=\"M"), 2u + 5u);  // power, clock, one tokens/s step per decode window
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(TelemetryChart, ClientReadingsAreLeftOutAndResumesSaid) {
  RunResult r = test::telemetry_fixture();
  r.telemetry->client_side_only = true;
  r.resumes = 1;
  report::Timeline t = report::build_timeline(fixture_series(), r);
  EXPECT_TRUE(t.power_w.empty());
  EXPECT_TRUE(t.sm_clock_mhz.empty());
  EXPECT_FALSE(t.power_limit_w);
  EXPECT_EQ(t.windows.size(), 7u);
  EXPECT_EQ(t.notes, (std::vector<std::string>{
                         "The GPU readings are of the client's machine (the server ran elsewhere), so they are left "
                         "out.",
                         "The run was resumed: this is the series of one session (telemetry.jsonl); each resumed "
                         "session wrote its own telemetry-resume<N>.jsonl."}));
  std::string html = report::render_timeline_html(t);
  EXPECT_NE(html.find("<figcaption>Output tok/s over the run</figcaption>"), std::string::npos);
  EXPECT_NE(html.find("The GPU readings are of the client&#39;s machine"), std::string::npos) << html.substr(0, 800);
  for (const char* absent : {"GPU power (W)", "SM clock (MHz)", "power limit", "swatch c1", "swatch c0"})
    EXPECT_EQ(html.find(absent), std::string::npos) << absent;
  EXPECT_EQ(count(html, "<g class=\"window decode\">"), 5u);
  EXPECT_NE(html.find("viewBox=\"0 0 1000.0 236.0\""), std::string::npos);  // one panel tall
}

TEST(TelemetryChart, NothingToDrawIsNoChart) {
  EXPECT_EQ(report::render_timeline_html(report::build_timeline(TelemetrySeries{}, RunResult{})), "");
  TelemetrySeries start_only;
  start_only.start_t_ns = kT0;
  EXPECT_EQ(report::render_timeline_html(report::build_timeline(start_only, RunResult{})), "");
}

TEST(TelemetryChart, HtmlReportShowsTheChartOnlyWithASeries) {
  const RunResult r = test::telemetry_fixture();
  const TelemetrySeries series = fixture_series();
  std::string with = render_report(r, ReportFormat::Html, {}, &series);
  EXPECT_EQ(count(with, "<section id=\"telemetry\">"), 1u);
  EXPECT_EQ(count(with, "<a href=\"#telemetry\">Over time</a>"), 1u);
  EXPECT_EQ(count(with, "svg.timeline {"), 1u);  // its style, once
  EXPECT_LT(with.find("id=\"decode\""), with.find("id=\"telemetry\""));
  EXPECT_LT(with.find("id=\"telemetry\""), with.find("id=\"measurements\""));

  std::string without = render_report(r, ReportFormat::Html, {});
  EXPECT_EQ(without.find("telemetry-chart"), std::string::npos);
  EXPECT_EQ(without.find("href=\"#telemetry\""), std::string::npos);
  EXPECT_EQ(without.find("svg.timeline"), std::string::npos);
  EXPECT_NE(without.find("id=\"efficiency-matrix\""), std::string::npos);  // the matrix needs no series

  // Other formats ignore the series.
  EXPECT_EQ(render_report(r, ReportFormat::Markdown, {}, &series), render_report(r, ReportFormat::Markdown, {}));
  // A run without telemetry: no matrix, no link, no style.
  std::string seed = render_report(test::seed_fixture(), ReportFormat::Html, {});
  for (const char* absent : {"efficiency", "telemetry", "timeline"}) EXPECT_EQ(seed.find(absent), std::string::npos) << absent;
}

TEST(TelemetryChart, SeriesIsFoundBesideTheResult) {
  const RunResult r = test::telemetry_fixture();
  for (const std::string& path : {test::telemetry_run_dir(), test::telemetry_run_dir() + "/result.json"}) {
    auto series = report::load_telemetry_series(path, r);
    ASSERT_TRUE(series.has_value()) << series.error().message;
    ASSERT_TRUE(series->has_value()) << path;
    EXPECT_EQ((*series)->windows.size(), 7u);
  }
  test::TempDir dir;
  std::filesystem::copy_file(test::telemetry_run_dir() + "/telemetry.jsonl", dir.file("gpu-series.jsonl"));
  RunResult named = r;
  named.telemetry->series_file = "../elsewhere/gpu-series.jsonl";  // only its name counts: the run folder's file
  auto series = report::load_telemetry_series(dir.path().string(), named);
  ASSERT_TRUE(series.has_value());
  EXPECT_TRUE(series->has_value());
  // None there: no series, no error.
  series = report::load_telemetry_series(dir.path().string(), r);
  ASSERT_TRUE(series.has_value());
  EXPECT_FALSE(series->has_value());
}

TEST(TelemetryChart, WriteRunReportsDrawsTheRunFoldersSeries) {
  test::TempDir dir;
  const RunResult r = test::telemetry_fixture();
  std::filesystem::copy_file(test::telemetry_run_dir() + "/telemetry.jsonl", dir.file("telemetry.jsonl"));
  ASSERT_TRUE(write_run_reports(r, dir.path().string()).has_value());
  const TelemetrySeries series = fixture_series();
  EXPECT_EQ(test::read_file(dir.file("report.html")), render_report(r, ReportFormat::Html, {}, &series));
  EXPECT_NE(test::read_file(dir.file("report.html")).find("id=\"telemetry-chart\""), std::string::npos);

  // A broken series only leaves the chart out.
  std::filesystem::remove(dir.file("telemetry.jsonl"));
  {
    std::ofstream(dir.file("telemetry.jsonl")) << "{\"kind\":\"start\",\"t_ns\":1}\nnot json\n{\"kind\":\"gpu\"}\n";
  }
  ASSERT_TRUE(write_run_reports(r, dir.path().string()).has_value());
  EXPECT_EQ(test::read_file(dir.file("report.html")), render_report(r, ReportFormat::Html, {}));
}

}  // namespace
}  // namespace sm
