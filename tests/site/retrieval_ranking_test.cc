// The long-context retrieval check on the site (issue 32 point 2): a context whose check failed is
// out of the rankings at that context (the leaderboard's figures skip it), and a run's page shows
// every context's verdict; every list shows the verdict beside the run, and the API says it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/report.h"
#include "site/run_marks.h"
#include "site/site_fixtures.h"
#include "site/site_harness.h"
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

TEST(RetrievalRanking, TheSummarySaysTheRunsVerdict) {
  RunResult r = test::site_result("ret-3");
  EXPECT_EQ(store::summarize_run(r).retrieval, "");  // no check
  r.retrieval = {check_at(16384, RetrievalVerdict::Exact), check_at(32768, RetrievalVerdict::Exact)};
  EXPECT_EQ(store::summarize_run(r).retrieval, "read");
  r.retrieval = {check_at(16384, RetrievalVerdict::Exact), check_at(32768, RetrievalVerdict::Error)};
  EXPECT_EQ(store::summarize_run(r).retrieval, "error");
  r.retrieval = {check_at(16384, RetrievalVerdict::NotApplicable), check_at(32768, RetrievalVerdict::NotApplicable)};
  EXPECT_EQ(store::summarize_run(r).retrieval, "not_applicable");
  // A failure outweighs an error; the failed contexts in ascending order, each once.
  r.retrieval = {check_at(131072, RetrievalVerdict::Truncated), check_at(16384, RetrievalVerdict::Error),
                 check_at(32768, RetrievalVerdict::NearMiss), check_at(131072, RetrievalVerdict::Wrong)};
  const store::RunSummary failed = store::summarize_run(r);
  EXPECT_EQ(failed.retrieval, "failed");
  EXPECT_EQ(failed.retrieval_failed_contexts, (std::vector<int64_t>{32768, 131072}));
  EXPECT_EQ(store::context_list_text(failed.retrieval_failed_contexts), "32768,131072");

  const std::string badge = retrieval_badge(failed);
  EXPECT_NE(badge.find("class=\"badge retrieval-failed\""), std::string::npos) << badge;
  EXPECT_NE(badge.find("Not read back: 32K, 128K"), std::string::npos) << badge;
  EXPECT_NE(run_badges(failed).find(badge), std::string::npos);
  store::RunSummary s;
  s.retrieval = "read";
  EXPECT_NE(retrieval_badge(s).find(">Read back</span>"), std::string::npos);
  s.retrieval = "error";
  EXPECT_NE(retrieval_badge(s).find("Retrieval check did not run"), std::string::npos);
  for (const char* none : {"", "not_applicable"}) {
    s.retrieval = none;
    EXPECT_EQ(retrieval_badge(s), "") << none;
  }
}

class RetrievalSite : public test::SiteHarness {};

TEST_F(RetrievalSite, ListsShowTheVerdictBesideTheRunAndTheApiSaysIt) {
  RunResult failed = test::site_result("unread", "M1", "NVIDIA GeForce RTX 3090", 100);
  failed.retrieval = {check_at(16384, RetrievalVerdict::Exact), check_at(32768, RetrievalVerdict::Truncated)};
  RunResult read = test::site_result("read", "M2", "NVIDIA GeForce RTX 3090", 90);
  read.retrieval = {check_at(16384, RetrievalVerdict::Exact)};
  ASSERT_EQ(upload(failed), 201);
  ASSERT_EQ(upload(read), 201);
  ASSERT_EQ(upload(test::site_result("unchecked", "M3", "NVIDIA GeForce RTX 3090", 80)), 201);

  // The row of each run, from its data-run-id to the end of the row.
  auto row = [](const std::string& page, const std::string& id) {
    const size_t at = page.find("data-run-id=\"" + id + "\"");
    return at == std::string::npos ? std::string() : page.substr(at, page.find("</tr>", at) - at);
  };
  for (const char* target : {"/", "/runs", "/hardware?gpu=RTX%203090%2024GB"}) {
    const SiteResponse page = get(target);
    ASSERT_EQ(page.status, 200) << target;
    EXPECT_NE(row(page.body, "unread").find("Not read back: 32K"), std::string::npos) << target;
    EXPECT_NE(row(page.body, "read").find(">Read back</span>"), std::string::npos) << target;
    const std::string unchecked = row(page.body, "unchecked");
    ASSERT_FALSE(unchecked.empty()) << target;
    EXPECT_EQ(unchecked.find("retrieval-"), std::string::npos) << target;
  }
  const SiteResponse run_page = get("/runs/unread");
  EXPECT_NE(run_page.body.find("id=\"retrieval-failed\""), std::string::npos);
  EXPECT_NE(run_page.body.find("Not read back at 32K."), std::string::npos);
  EXPECT_EQ(get("/runs/read").body.find("id=\"retrieval-failed\""), std::string::npos);

  const auto runs = nlohmann::json::parse(get("/api/v1/runs").body);
  for (const auto& r : runs["runs"]) {
    if (r["run_id"] == "unread") {
      EXPECT_EQ(r["retrieval"], "failed");
      EXPECT_EQ(r["retrieval_failed_contexts"], nlohmann::json::array({32768}));
    } else {
      EXPECT_EQ(r["retrieval"], r["run_id"] == "read" ? "read" : "");
      EXPECT_TRUE(r["retrieval_failed_contexts"].empty());
    }
  }

  // In Japanese too.
  SiteRequest ja;
  ja.path = "/runs";
  ja.accept_language = "ja";
  ja.client = "127.0.0.1";
  EXPECT_NE(site_->handle(ja).body.find("読み返せず：32K"), std::string::npos);
}

}  // namespace
}  // namespace sm::site
