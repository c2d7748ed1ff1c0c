// A server that decodes speculatively: the report's section gives each cell's acceptance beside
// its tok/s, and warns that random-token prompts make the figures a floor (issue 33 point 2).
#include <gtest/gtest.h>

#include "report/report.h"
#include "report/report_sections.h"

namespace sm::report {
namespace {

RunResult speculating_run() {
  RunResult r;
  DecodeCell c;
  c.context = 1024;
  c.concurrency = 4;
  c.status = CellStatus::Valid;
  c.total_tok_s = 812.0;
  c.tokens_per_chunk = 1.6;
  c.telemetry.spec_draft_tokens = 3000;
  c.telemetry.spec_accepted_tokens = 600;
  c.telemetry.spec_drafts = 1000;
  c.telemetry.spec_accept_length = 1.6;
  r.decode.push_back(c);
  DecodeCell plain = c;
  plain.concurrency = 8;
  plain.telemetry = {};
  r.decode.push_back(plain);
  return r;
}

TEST(ReportSpeculation, EachSpeculatingCellHasItsAcceptance) {
  const Table t = section::speculation_table(speculating_run());
  ASSERT_EQ(t.rows.size(), 1u);  // the cell without drafts is not listed
  EXPECT_EQ(t.rows[0].cells, (std::vector<std::string>{"1K", "4", "812.0", "3,000", "20%", "1.60", "1.60"}));
  std::vector<Finding> findings;
  section::add_speculation_findings(speculating_run(), findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::Warning);
  EXPECT_NE(findings[0].text.find("(20% of its draft tokens accepted over the matrix)"), std::string::npos);
  EXPECT_NE(findings[0].text.find("a floor"), std::string::npos);
  const std::string md = render_report(speculating_run(), ReportFormat::Markdown, {});
  EXPECT_NE(md.find("## Speculative decoding"), std::string::npos);
}

TEST(ReportSpeculation, NothingWhereTheServerDoesNotSpeculate) {
  RunResult r = speculating_run();
  r.decode.erase(r.decode.begin());
  EXPECT_TRUE(section::speculation_table(r).rows.empty());
  std::vector<Finding> findings;
  section::add_speculation_findings(r, findings);
  EXPECT_TRUE(findings.empty());
  EXPECT_EQ(render_report(r, ReportFormat::Markdown, {}).find("Speculative decoding"), std::string::npos);
}

}  // namespace
}  // namespace sm::report
