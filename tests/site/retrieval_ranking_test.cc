// The long-context retrieval check on the site (issue 32 point 2): a context whose check failed is
// out of the rankings at that context (the leaderboard's figures skip it), and a run's page shows
// every context's verdict.
#include <gtest/gtest.h>

#include "report/report.h"
#include "site/site_fixtures.h"
#include "store/run_summary.h"

namespace sm::site {
namespace {

RetrievalCheck check_at(int64_t context, RetrievalVerdict verdict) {
  RetrievalCheck c;
  c.context = context;
  c.depth = 0.25;
  c.verdict = verdict;
  c.excerpt = " The passkey is 1234567.";
  return c;
}

TEST(RetrievalRanking, FailedContextsAreLeftOutOfTheHeadlineFigures) {
  RunResult r = test::site_result("ret-1");
  const store::RunSummary before = store::summarize_run(r);
  ASSERT_TRUE(before.best_total_tok_s.has_value());
  ASSERT_EQ(before.best_total_context, 0);  // the fixture's best cell and single stream are at context 0
  ASSERT_EQ(before.single_stream_context, 0);
  ASSERT_TRUE(before.prefill_32k_tok_s.has_value());

  // (Context 0 has no check in a real run; any failed context is left out the same way.)
  r.retrieval = {check_at(0, RetrievalVerdict::Wrong), check_at(32768, RetrievalVerdict::Truncated)};
  const store::RunSummary after = store::summarize_run(r);
  ASSERT_TRUE(after.best_total_tok_s.has_value());
  EXPECT_EQ(after.best_total_context, 16384);
  EXPECT_LT(*after.best_total_tok_s, *before.best_total_tok_s);
  EXPECT_EQ(after.single_stream_context, 16384);
  EXPECT_FALSE(after.prefill_32k_tok_s.has_value());
  EXPECT_EQ(after.valid_cells, before.valid_cells);  // the cells stay valid

  // Exact, not applicable and error leave the figures as they were.
  r.retrieval = {check_at(0, RetrievalVerdict::Exact), check_at(32768, RetrievalVerdict::Error)};
  const store::RunSummary kept = store::summarize_run(r);
  EXPECT_EQ(kept.best_total_tok_s, before.best_total_tok_s);
  EXPECT_EQ(kept.prefill_32k_tok_s, before.prefill_32k_tok_s);
}

TEST(RetrievalRanking, TheRunPageShowsEachVerdict) {
  RunResult r = test::site_result("ret-2");
  r.retrieval = {check_at(16384, RetrievalVerdict::NearMiss)};
  const std::string html = render_report(r, ReportFormat::Html, {});
  EXPECT_NE(html.find("id=\"retrieval\""), std::string::npos);
  EXPECT_NE(html.find("near miss: a number one or two digits off"), std::string::npos);
  EXPECT_NE(html.find("Retrieval check at 16K"), std::string::npos);
}

}  // namespace
}  // namespace sm::site
