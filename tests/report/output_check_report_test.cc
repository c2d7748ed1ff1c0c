// The report names the cells whose output looped or was not text, with the excerpt (issue 32):
// a warning on a real model, a note on a synthetic one; and says the check held otherwise.
#include <gtest/gtest.h>

#include "report/output_check_model.h"
#include "report/report_sections.h"

namespace sm::report {
namespace {

DecodeCell cell(int64_t context, int64_t concurrency, std::string verdict, int64_t repeat, std::string excerpt = "]") {
  DecodeCell c;
  c.context = context;
  c.concurrency = concurrency;
  c.status = CellStatus::Valid;
  c.total_tok_s = 100;
  OutputCheckSummary& o = c.output_check.emplace();
  o.requests = 8;
  o.repeat = repeat;
  o.verdict = std::move(verdict);
  if (repeat > 0) {
    o.flaw = "repeat";
    o.excerpt = std::move(excerpt);
  }
  return c;
}

TEST(OutputCheckReport, ALoopingCellIsAWarningWithItsExcerpt) {
  RunResult r;
  r.decode = {cell(4096, 8, "loop", 8, "the same\x01 words "), cell(0, 1, "ok", 0)};
  const auto found = output_check_findings(r);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::Warning);
  EXPECT_EQ(found[0].text,
            "Decode 4K × 8: the output loops: 8 of 8 requests repeat “the same\\x01 words ” back to back. This speed is "
            "not the model's: a broken model or server can be fast this way, so the site keeps this cell out of its "
            "rankings.");
  // The findings the report shows carry it, and the check is not claimed to have held.
  const auto all = section::findings(r);
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const Finding& f) { return f.text == found[0].text; }));
  EXPECT_FALSE(output_check_passed(r).has_value());
}

TEST(OutputCheckReport, OnASyntheticModelALoopIsANote) {
  RunResult r;
  r.engine.synthetic_model = true;
  r.decode = {cell(0, 1, "loop", 8)};
  const auto found = output_check_findings(r);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::Info);
  EXPECT_NE(found[0].text.find("Expected of a synthetic model"), std::string::npos) << found[0].text;
}

TEST(OutputCheckReport, NotTextAndTheCheckThatHeld) {
  RunResult r;
  DecodeCell garbled = cell(1024, 2, "not_text", 0);
  garbled.output_check->not_text = 3;
  garbled.output_check->flaw = "not_text";
  garbled.output_check->excerpt = "\xEF\xBF\xBD\xEF\xBF\xBD";
  r.decode = {garbled};
  auto found = output_check_findings(r);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].text.find("the output is not text: 3 of 8 requests"), std::string::npos) << found[0].text;

  r.decode = {cell(0, 1, "ok", 0), cell(0, 2, "ok", 0)};
  EXPECT_TRUE(output_check_findings(r).empty());
  EXPECT_EQ(output_check_passed(r), "No output looped or was other than text (16 requests checked in 2 cells).");
  const auto checks = section::checks_passed(r);
  EXPECT_NE(std::find(checks.begin(), checks.end(), *output_check_passed(r)), checks.end());
  // Files from before the checks say nothing either way.
  r.decode[0].output_check.reset();
  r.decode[1].output_check.reset();
  EXPECT_FALSE(output_check_passed(r).has_value());
}

}  // namespace
}  // namespace sm::report
