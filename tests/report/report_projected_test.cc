// Adaptive windows (--precision): a settled cell's total_tok_s is a projection to the full
// --duration. The CSV carries the window's own figure, whether it settled and the horizon, and the
// reports' definitions say so (issue 31 point 4, part).
#include <gtest/gtest.h>

#include "report/report.h"
#include "report/report_headline.h"
#include <fmt/format.h>

#include "report/golden.h"

namespace sm {
namespace {

RunResult adaptive_run() {
  RunResult r = test::seed_fixture();
  r.settings.precision = 0.02;
  r.settings.duration_s = 30;
  for (DecodeCell& c : r.decode) {
    if (c.status != CellStatus::Valid || !c.total_tok_s) continue;
    c.settled = true;
    c.window_tok_s = *c.total_tok_s * 0.98;  // an 8 s window read a little low of its projection
  }
  return r;
}

TEST(ReportProjected, TheCsvCarriesTheWindowsOwnRateAndTheHorizon) {
  const RunResult r = adaptive_run();
  const std::string csv = render_report(r, ReportFormat::Csv, {});
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",window_tok_s,settled,projected_to_s,"), std::string::npos) << header;
  // A settled decode row ends with its window's figure, true and the 30 s horizon.
  const DecodeCell* settled = nullptr;
  for (const DecodeCell& c : r.decode)
    if (c.settled) settled = &c;
  ASSERT_NE(settled, nullptr);
  // (then the SLO columns, empty without --slo, the energy columns, empty without telemetry, and
  // the speculation, answer-length and reasoning ones, empty here)
  EXPECT_NE(csv.find(fmt::format(",{},true,30,,,,,,,,,,,,,,,,,,,,,,,,,,\n", *settled->window_tok_s)), std::string::npos)
      << csv.substr(0, 2000);
  // Without --precision nothing is projected: the columns stay empty.
  const std::string plain = render_report(test::seed_fixture(), ReportFormat::Csv, {});
  EXPECT_EQ(plain.find(",true,30,"), std::string::npos);
}

TEST(ReportProjected, TheDefinitionsSayASettledRateIsProjected) {
  RunResult r = adaptive_run();
  r.settings.min_window_s = 5;
  const std::string md = render_report(r, ReportFormat::Markdown, {});
  // The run card shows the window as adaptive, --duration as the cap, not the time each cell took.
  EXPECT_NE(md.find("adaptive: 5 s to 30 s, closed within ±2%"), std::string::npos) << md.substr(0, 3000);
  EXPECT_NE(md.find("Projected (adaptive windows)"), std::string::npos);
  EXPECT_NE(md.find("projected to the full --duration"), std::string::npos);
  EXPECT_EQ(render_report(test::seed_fixture(), ReportFormat::Markdown, {}).find("Projected (adaptive windows)"),
            std::string::npos);
}

TEST(ReportProjected, EveryPrinterMarksAProjectedRate) {
  RunResult r = adaptive_run();
  for (DecodeCell& c : r.decode)
    if (c.settled) c.measured_s = 8.0;
  for (ReportFormat format : {ReportFormat::Term, ReportFormat::Markdown, ReportFormat::Html}) {
    const std::string text = render_report(r, format, {false, 400});  // wide: the caption on one line
    EXPECT_NE(text.find("~ projected to the full window"), std::string::npos) << static_cast<int>(format);
    EXPECT_NE(text.find("~"), std::string::npos);
  }
  const std::string html = render_report(r, ReportFormat::Html, {});
  EXPECT_NE(html.find("projected to 30 s from a 8 s window"), std::string::npos) << html.substr(0, 2000);
  // Nothing projected: no mark.
  EXPECT_EQ(render_report(test::seed_fixture(), ReportFormat::Markdown, {}).find("~ projected"), std::string::npos);
}

// The headline's figures come from decode cells too: a projected one is marked there as in the
// matrices, and the per-request matrix is marked like the total (its rate is scaled with it).
TEST(ReportProjected, TheHeadlineAndThePerRequestMatrixMarkAProjection) {
  RunResult r = adaptive_run();
  for (DecodeCell& c : r.decode)
    if (c.settled) c.measured_s = 8.0;
  const auto headline = report::headline_figures(r);
  ASSERT_GE(headline.size(), 2u);
  EXPECT_TRUE(headline[0].value.starts_with("~")) << headline[0].value;
  EXPECT_NE(headline[0].detail.find("projected to 30 s from a 8 s window"), std::string::npos) << headline[0].detail;
  EXPECT_TRUE(headline[1].value.starts_with("~")) << headline[1].value;  // single stream
  for (const auto& h : report::headline_figures(test::seed_fixture())) EXPECT_FALSE(h.value.starts_with("~")) << h.value;
  const std::string md = render_report(r, ReportFormat::Markdown, {});
  const size_t per_request = md.find("## Per request decode");
  ASSERT_NE(per_request, std::string::npos);
  EXPECT_NE(md.find("| ~", per_request), std::string::npos) << md.substr(per_request, 1500);
}

// compare's setting differences say a run's windows were adaptive, not only its cap.
TEST(ReportProjected, CompareSaysTheWindowsWereAdaptive) {
  RunResult adaptive = adaptive_run();
  RunResult fixed = test::seed_fixture();
  fixed.settings.duration_s = 30;
  fixed.run_id = "fixed";
  const std::string md = render_compare({fixed, adaptive}, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("Time per measurement"), std::string::npos) << md.substr(0, 3000);
  EXPECT_NE(md.find("adaptive: 30 s to 30 s"), std::string::npos) << md.substr(0, 3000);
}

}  // namespace
}  // namespace sm
