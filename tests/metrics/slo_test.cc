// One definition of "meets the SLO" for the sweep and the SLO search: a closed-loop measurement
// judged against targets at a percentile, on hand-made records.
#include "metrics/slo.h"

#include <gtest/gtest.h>

#include "core/clock.h"

namespace sm {
namespace {

// Sent at send_ms, first token at first_ms, then one token every gap_ms.
RequestRecord record(int64_t send_ms, int64_t first_ms, int64_t tokens, int64_t gap_ms,
                     RequestEnd end = RequestEnd::Finished) {
  RequestRecord r;
  r.send_ns = send_ms * kNsPerMs;
  for (int64_t k = 0; k < tokens; ++k) r.chunks.push_back({(first_ms + k * gap_ms) * kNsPerMs, 1});
  r.tokens = tokens;
  r.first_token_ns = tokens > 0 ? first_ms * kNsPerMs : -1;
  r.end_ns = tokens > 0 ? (first_ms + (tokens - 1) * gap_ms) * kNsPerMs : (first_ms * kNsPerMs);
  r.end = end;
  return r;
}

TEST(Slo, TheShareOfRequestsMustReachThePercentile) {
  EXPECT_TRUE(meets_slo_share(0.9, 90));
  EXPECT_TRUE(meets_slo_share(9.0 / 10.0, 90));
  EXPECT_FALSE(meets_slo_share(0.89, 90));
  EXPECT_TRUE(meets_slo_share(1.0, 100));
  EXPECT_FALSE(meets_slo_share(0.99, 100));
  EXPECT_DOUBLE_EQ(goodput_rps(10, 3, 4), 7.5);
  EXPECT_DOUBLE_EQ(goodput_rps(10, 0, 0), 0);
}

// Ten requests in a 1 s window: nine with TPOT 10 ms, one with TPOT 30 ms. At p90 with a 20 ms
// target 9 of 10 meet it: the cell passes; at p95 it does not.
TEST(Slo, AClosedLoopCellIsJudgedAtThePercentile) {
  std::vector<RequestRecord> rs;
  for (int i = 0; i < 9; ++i) rs.push_back(record(i * 10, i * 10 + 50, 11, 10));  // ends by 240 ms
  rs.push_back(record(0, 100, 11, 30));                                            // ends at 400 ms
  const DecodeWindow window{0, 1000 * kNsPerMs};
  SloTargets slo;
  slo.tpot_ms = 20;
  SloJudgement j = judge_closed_loop(rs, window, slo);
  EXPECT_EQ(j.requests, 10);
  EXPECT_EQ(j.met, 9);
  EXPECT_DOUBLE_EQ(*j.met_fraction, 0.9);
  EXPECT_TRUE(j.meets);
  EXPECT_DOUBLE_EQ(*j.achieved_rps, 10);  // ten completions in one second
  EXPECT_DOUBLE_EQ(*j.goodput_rps, 9);
  EXPECT_DOUBLE_EQ(*j.goodput_tok_s, 99);  // the nine's 11 tokens each
  ASSERT_TRUE(j.tpot_ms && j.ttft_ms);
  EXPECT_GT(*j.tpot_ms, 10);  // p90 of nine 10s and one 30 (interpolated)
  EXPECT_LT(*j.tpot_ms, 30);
  EXPECT_DOUBLE_EQ(*j.ttft_ms, 55);  // nine 50s and one 100: 50 + 0.1 × 50
  slo.percentile = 95;
  EXPECT_FALSE(judge_closed_loop(rs, window, slo).meets);
}

// A stream cut by the window's end is no failure; one cut before its first token counts only
// once it has waited past the TTFT target; a failed request never meets the SLO.
TEST(Slo, CutRequestsCountByWhatTheyShowedFailedOnesMiss) {
  SloTargets slo;
  slo.ttft_ms = 100;
  slo.tpot_ms = 20;
  std::vector<RequestRecord> rs = {
      record(0, 50, 5, 10, RequestEnd::Cut),        // cut mid-answer, within both: meets
      record(900, 0, 0, 0, RequestEnd::Cut),         // cut 50 ms after its send, no token: not judged
      record(700, 0, 0, 0, RequestEnd::Cut),         // cut 250 ms after its send, no token: misses TTFT
      record(0, 40, 5, 10, RequestEnd::Failed),      // failed: misses
  };
  rs[1].end_ns = 950 * kNsPerMs;
  rs[2].end_ns = 950 * kNsPerMs;
  const SloJudgement j = judge_closed_loop(rs, DecodeWindow{0, 950 * kNsPerMs}, slo);
  EXPECT_EQ(j.requests, 3);
  EXPECT_EQ(j.met, 1);
  EXPECT_FALSE(j.meets);
  EXPECT_DOUBLE_EQ(*j.achieved_rps, 0);  // nothing completed inside the window
  EXPECT_DOUBLE_EQ(*j.goodput_rps, 0);
  EXPECT_GT(*j.goodput_tok_s, 0);  // the cut stream's tokens were within the SLO
}

// The sweep's per-request rule is the same function: a one-token answer has no TPOT and passes it.
TEST(Slo, OneRequestsRuleIsShared) {
  SloTargets slo;
  slo.tpot_ms = 1;
  EXPECT_TRUE(meets_slo(request_latency(record(0, 10, 1, 0), 0), slo));
  slo.ttft_ms = 5;
  EXPECT_FALSE(meets_slo(request_latency(record(0, 10, 1, 0), 0), slo));
}

}  // namespace
}  // namespace sm
