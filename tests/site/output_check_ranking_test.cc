// A looping server cannot top a ranking (issue 32): a run's listed figures (single-stream and best
// total tok/s, best tokens per joule) count only cells whose output stands; a synthetic model's
// loops are expected and its figures stand (such runs are out of default rankings anyway).
#include <gtest/gtest.h>

#include "site/site_fixtures.h"
#include "store/run_summary.h"
#include "store/run_telemetry.h"

namespace sm::store {
namespace {

void loops(DecodeCell& c) {
  OutputCheckSummary& o = c.output_check.emplace();
  o.requests = 4;
  o.repeat = 4;
  o.verdict = "loop";
  o.flaw = "repeat";
  o.excerpt = "]";
}

TEST(OutputCheckRanking, ALoopingCellGivesTheRunNoFigure) {
  RunResult r = test::site_result("20261206T100000Z-0000loop", "M1");
  test::add_gpu_telemetry(r, 2.0);
  // site_result: context 0 gives 180 (x1) and 324 (x2) tok/s; 16K 162-ish and 270-ish.
  const RunSummary before = summarize_run(r);
  ASSERT_EQ(before.best_total_context, 0);
  ASSERT_EQ(before.best_total_concurrency, 2);
  ASSERT_EQ(before.best_tokens_per_joule_context, 16384);
  for (auto& c : r.decode) {
    if (c.context == 0) loops(c);
    else c.output_check.emplace();  // checked, ok
  }
  r.decode[3].output_check->requests = 2;
  const RunSummary after = summarize_run(r);
  EXPECT_EQ(after.valid_cells, before.valid_cells);  // still valid cells: what the server did
  EXPECT_EQ(after.best_total_context, 16384);
  EXPECT_LT(*after.best_total_tok_s, *before.best_total_tok_s);
  EXPECT_EQ(after.single_stream_context, 16384);
  EXPECT_EQ(after.best_tokens_per_joule_context, 16384);

  // The 16K x 2 cell loops too: its tokens per joule no longer count.
  loops(r.decode[3]);
  const RunSummary worse = summarize_run(r);
  EXPECT_EQ(worse.best_total_concurrency, 1);
  EXPECT_EQ(worse.best_tokens_per_joule_concurrency, 1);
}

TEST(OutputCheckRanking, ASyntheticModelsLoopsAreExpected) {
  RunResult r = test::site_result("20261206T100000Z-0000synt", "M1");
  const RunSummary before = summarize_run(r);
  r.engine.synthetic_model = true;
  for (auto& c : r.decode) loops(c);
  const RunSummary after = summarize_run(r);
  EXPECT_EQ(after.best_total_tok_s, before.best_total_tok_s);
  EXPECT_EQ(after.single_stream_tok_s, before.single_stream_tok_s);
}

}  // namespace
}  // namespace sm::store
