// The printers' output for the fixtures, held in tests/golden/. Regenerate after an intended
// change with: SPEEDMATRIX_UPDATE_GOLDEN=1 build/tests/unit_tests --gtest_filter='ReportGolden*'
#include <gtest/gtest.h>

#include "report/golden.h"
#include "report/report.h"
#include "report/result_input.h"

namespace sm {
namespace {

RenderOptions plain() { return RenderOptions{false, 100}; }

TEST(ReportGolden, SeedMarkdown) {
  test::expect_golden("seed.md", render_report(test::seed_fixture(), ReportFormat::Markdown, plain()));
}

TEST(ReportGolden, SeedCsv) {
  test::expect_golden("seed.csv", render_report(test::seed_fixture(), ReportFormat::Csv, plain()));
}

TEST(ReportGolden, SeedTerminal) {
  test::expect_golden("seed.term.txt", render_report(test::seed_fixture(), ReportFormat::Term, plain()));
}

TEST(ReportGolden, SeedTerminalColour) {
  test::expect_golden("seed.term.ansi", render_report(test::seed_fixture(), ReportFormat::Term, {true, 100}));
}

TEST(ReportGolden, SeedTerminalNarrow) {
  test::expect_golden("seed.term-60.txt", render_report(test::seed_fixture(), ReportFormat::Term, {false, 60}));
}

TEST(ReportGolden, VariantMarkdown) {
  test::expect_golden("variant.md", render_report(test::variant_fixture(), ReportFormat::Markdown, plain()));
}

TEST(ReportGolden, VariantCsv) {
  test::expect_golden("variant.csv", render_report(test::variant_fixture(), ReportFormat::Csv, plain()));
}

TEST(ReportGolden, VariantTerminal) {
  test::expect_golden("variant.term.txt", render_report(test::variant_fixture(), ReportFormat::Term, plain()));
}

// A run with telemetry: the tokens-per-joule matrix, the measurements' telemetry columns, the
// throttle warning, the GPUs' facts; the HTML with the run folder's time chart.
TEST(ReportGolden, TelemetryMarkdown) {
  test::expect_golden("telemetry.md", render_report(test::telemetry_fixture(), ReportFormat::Markdown, plain()));
}

TEST(ReportGolden, TelemetryCsv) {
  test::expect_golden("telemetry.csv", render_report(test::telemetry_fixture(), ReportFormat::Csv, plain()));
}

TEST(ReportGolden, TelemetryTerminal) {
  test::expect_golden("telemetry.term.txt", render_report(test::telemetry_fixture(), ReportFormat::Term, plain()));
}

TEST(ReportGolden, TelemetryTerminalNarrow) {
  test::expect_golden("telemetry.term-60.txt",
                      render_report(test::telemetry_fixture(), ReportFormat::Term, {false, 60}));
}

TEST(ReportGolden, TelemetryHtml) {
  RunResult result = test::telemetry_fixture();
  auto series = report::load_telemetry_series(test::telemetry_run_dir(), result);
  ASSERT_TRUE(series.has_value() && series->has_value());
  test::expect_golden("telemetry.html", render_report(result, ReportFormat::Html, plain(), &**series));
}

TEST(ReportGolden, CompareTerminal) {
  CompareOptions options{plain(), {"seed", "variant"}};
  test::expect_golden("compare.term.txt", render_compare({test::seed_fixture(), test::variant_fixture()},
                                                         ReportFormat::Term, options));
}

TEST(ReportGolden, CompareMarkdown) {
  CompareOptions options{plain(), {"seed", "variant"}};
  test::expect_golden("compare.md", render_compare({test::seed_fixture(), test::variant_fixture()},
                                                   ReportFormat::Markdown, options));
}

}  // namespace
}  // namespace sm
