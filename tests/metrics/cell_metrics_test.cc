#include "metrics/cell_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sm {
namespace {

constexpr int64_t kMs = 1'000'000;

// A stream that sends `n` chunks of `k` tokens every `gap` ms starting at `first` ms.
RequestRecord stream(int64_t send_ms, int64_t first_ms, int64_t gap_ms, int n, int k, RequestEnd end) {
  RequestRecord r;
  r.send_ns = send_ms * kMs;
  r.first_token_ns = first_ms * kMs;
  for (int i = 0; i < n; ++i) r.chunks.push_back({(first_ms + i * gap_ms) * kMs, k});
  r.tokens = static_cast<int64_t>(n) * k;
  r.end = end;
  r.end_ns = end == RequestEnd::Cut ? -1 : r.chunks.back().t_ns;
  r.source = TokenSource::UsageContinuous;
  r.usage_prompt_tokens = 1000;
  return r;
}

TEST(CellMetrics, SteadyStreams) {
  // Two streams, 1 token every 10 ms from t=20 ms, window [100 ms, 1100 ms).
  std::vector<RequestRecord> rs{stream(0, 20, 10, 200, 1, RequestEnd::Cut), stream(0, 20, 10, 200, 1, RequestEnd::Cut)};
  DecodeCell c;
  c.concurrency = 2;
  compute_decode_metrics(rs, {100 * kMs, 1100 * kMs}, 1000, c);
  EXPECT_DOUBLE_EQ(*c.measured_s, 1.0);
  EXPECT_EQ(*c.output_tokens, 200);          // 100 per stream inside the window
  EXPECT_DOUBLE_EQ(*c.total_tok_s, 200.0);
  EXPECT_NEAR(*c.per_request_tok_s, 100.0, 1e-9);
  EXPECT_DOUBLE_EQ(*c.tbt_ms, 10.0);
  EXPECT_DOUBLE_EQ(*c.chunk_gap_ms, 10.0);
  EXPECT_DOUBLE_EQ(*c.ttft_ms, 20.0);
  EXPECT_DOUBLE_EQ(*c.avg_active, 2.0);
  EXPECT_DOUBLE_EQ(*c.effective_concurrency, 2.0);
  EXPECT_EQ(*c.completed, 0);
  EXPECT_TRUE(c.prompt_length_ok);
  EXPECT_TRUE(c.warnings.empty());
}

// A window of no length measured no rate (issue 31 point 8): empty, not 0.0 tok/s.
TEST(CellMetrics, AZeroLengthWindowHasNoRate) {
  std::vector<RequestRecord> rs{stream(0, 20, 10, 200, 1, RequestEnd::Cut)};
  DecodeCell c;
  compute_decode_metrics(rs, {500 * kMs, 500 * kMs}, -1, c);
  EXPECT_FALSE(c.total_tok_s.has_value());
  EXPECT_EQ(c.measured_s, 0.0);
  EXPECT_EQ(c.output_tokens, 0);
}

TEST(CellMetrics, MultiTokenChunksShareTheirGap) {
  std::vector<RequestRecord> rs{stream(0, 0, 30, 100, 3, RequestEnd::Cut)};
  DecodeCell c;
  c.concurrency = 1;
  compute_decode_metrics(rs, {300 * kMs, 1500 * kMs}, -1, c);
  EXPECT_DOUBLE_EQ(*c.tbt_ms, 10.0);
  EXPECT_DOUBLE_EQ(*c.chunk_gap_ms, 30.0);
  EXPECT_DOUBLE_EQ(*c.tokens_per_chunk, 3.0);
  EXPECT_NEAR(*c.per_request_tok_s, 100.0, 1e-6);
  EXPECT_DOUBLE_EQ(*c.total_tok_s, 3.0 * 40 / 1.2);  // chunks at 300..1470 ms: 40 chunks
}

TEST(CellMetrics, QueuedRequestsLowerEffectiveConcurrency) {
  // Four streams sent at t=0; two generate from 10 ms, two wait (queued) for the whole window.
  std::vector<RequestRecord> rs{stream(0, 10, 10, 500, 1, RequestEnd::Cut), stream(0, 10, 10, 500, 1, RequestEnd::Cut)};
  for (int i = 0; i < 2; ++i) {
    RequestRecord queued;
    queued.send_ns = 0;
    queued.end = RequestEnd::Cut;
    rs.push_back(queued);
  }
  DecodeCell c;
  c.concurrency = 4;
  compute_decode_metrics(rs, {100 * kMs, 1100 * kMs}, -1, c);
  EXPECT_DOUBLE_EQ(*c.avg_active, 4.0);
  EXPECT_DOUBLE_EQ(*c.effective_concurrency, 2.0);
  EXPECT_TRUE(effective_concurrency_below_requested(c));
  c.effective_concurrency = 3.5;  // half a stream short: gaps between requests, not flagged
  EXPECT_FALSE(effective_concurrency_below_requested(c));
}

TEST(CellMetrics, CompletedEarlyFailedAndPromptMiss) {
  std::vector<RequestRecord> rs{stream(0, 10, 10, 50, 1, RequestEnd::Finished),
                                stream(0, 10, 10, 20, 1, RequestEnd::EndedEarly)};
  RequestRecord failed;
  failed.send_ns = 0;
  failed.end = RequestEnd::Failed;
  failed.end_ns = 5 * kMs;
  failed.usage_prompt_tokens = 1200;
  rs.push_back(failed);
  DecodeCell c;
  c.concurrency = 2;
  compute_decode_metrics(rs, {0, 1000 * kMs}, 1000, c);
  EXPECT_EQ(*c.completed, 2);
  EXPECT_EQ(*c.ended_early, 1);
  EXPECT_EQ(*c.requests_failed, 1);
  EXPECT_FALSE(c.prompt_length_ok);
  EXPECT_EQ(*c.prompt_tokens_max, 1200);
}

TEST(CellMetrics, PromptTolerance) {
  EXPECT_TRUE(prompt_length_ok(16, 0));
  EXPECT_FALSE(prompt_length_ok(17, 0));
  EXPECT_TRUE(prompt_length_ok(131072 + 655, 131072));  // 0.5% = 655.36
  EXPECT_FALSE(prompt_length_ok(131072 + 656, 131072));
}

TEST(CellMetrics, Prefill) {
  RequestRecord r = stream(0, 773, 1, 1, 1, RequestEnd::Finished);
  r.usage_prompt_tokens = 8192;
  PrefillRow row;
  row.context = 8192;
  compute_prefill_metrics(r, 8192, row);
  EXPECT_DOUBLE_EQ(*row.ttft_ms, 773.0);
  EXPECT_NEAR(*row.prompt_tok_s, 8192 / 0.773, 1e-6);
  EXPECT_TRUE(row.prompt_length_ok);
}

}  // namespace
}  // namespace sm

namespace sm {
namespace {

TEST(CellIntervals, SteadyStreamsHaveAnExactRateAndZeroWidth) {
  // Two streams, one token every 10 ms, over a 10 s window: every 1 s bin holds 200 tokens.
  std::vector<RequestRecord> rs{stream(0, 20, 10, 1100, 1, RequestEnd::Cut), stream(0, 20, 10, 1100, 1, RequestEnd::Cut)};
  DecodeCell c;
  c.concurrency = 2;
  compute_decode_metrics(rs, {500 * kMs, 10'500 * kMs}, -1, c);
  ASSERT_TRUE(c.total_tok_s_ci);
  EXPECT_DOUBLE_EQ(*c.total_tok_s, 200.0);
  EXPECT_NEAR(*c.total_tok_s_ci, 0.0, 1e-9);
  ASSERT_TRUE(c.per_request_tok_s_ci);
  EXPECT_NEAR(*c.per_request_tok_s_ci, 0.0, 1e-6);
}

TEST(CellIntervals, UnevenSecondsWidenTheInterval) {
  // One stream whose rate alternates each second between 50 and 150 tok/s, over 20 s: the mean
  // is 100 tok/s and the batch-means half-width is t(19) × sd ÷ √20 of the alternating bins.
  RequestRecord r;
  r.send_ns = 0;
  r.first_token_ns = 1;
  int64_t t = 1;
  for (int s = 0; s < 20; ++s) {
    const int per_s = s % 2 ? 150 : 50;
    for (int i = 0; i < per_s; ++i) {
      r.chunks.push_back({t, 1});
      t += 1'000'000'000 / per_s;
    }
    t = (s + 1) * 1'000'000'000LL + 1;
  }
  r.tokens = static_cast<int64_t>(r.chunks.size());
  r.end = RequestEnd::Cut;
  r.end_ns = -1;
  r.source = TokenSource::UsageContinuous;
  DecodeCell c;
  c.concurrency = 1;
  compute_decode_metrics(std::vector<RequestRecord>{r}, {0, 20'000'000'000LL}, -1, c);
  EXPECT_NEAR(*c.total_tok_s, 100.0, 1e-9);
  ASSERT_TRUE(c.total_tok_s_ci);
  const double sd = std::sqrt(2500.0 * 20 / 19);
  // (Within 0.5%: the straight line through the alternating rates has a slight slope, taken out.)
  EXPECT_NEAR(*c.total_tok_s_ci, 2.093 * sd / std::sqrt(20.0), 0.12);
  // The stream generated the whole time: its per-stream precision is the same, relative.
  ASSERT_TRUE(c.per_request_tok_s_ci);
  EXPECT_NEAR(*c.per_request_tok_s_ci / *c.per_request_tok_s, *c.total_tok_s_ci / *c.total_tok_s, 0.01);
}

TEST(CellIntervals, ShortWindowHasNoInterval) {
  std::vector<RequestRecord> rs{stream(0, 20, 10, 300, 1, RequestEnd::Cut)};
  DecodeCell c;
  c.concurrency = 1;
  compute_decode_metrics(rs, {100 * kMs, 2100 * kMs}, -1, c);
  EXPECT_TRUE(c.total_tok_s.has_value());
  EXPECT_FALSE(c.total_tok_s_ci.has_value());
}

TEST(WindowBins, AStepEngineCountsEvenSecondsNotWholeSteps) {
  // Four streams decoding as one batch, a step (one token each) every 80 ms: 50 tok/s. Counted by
  // chunk arrival a second holds 12 or 13 steps (48 or 52 tokens); spread over the gaps, 50.
  std::vector<RequestRecord> rs;
  for (int s = 0; s < 4; ++s) rs.push_back(stream(0, 10, 80, 200, 1, RequestEnd::Cut));
  const auto bins = tokens_per_second(rs, {1000 * kMs, 11'000 * kMs});
  ASSERT_EQ(bins.size(), 10u);
  for (double b : bins) EXPECT_NEAR(b, 50.0, 1e-9);
}

TEST(WindowBins, TheTokenThatOpenedTheWindowIsNotTheFirstSeconds) {
  // One stream whose first token opens the window at 100 ms, then one every 20 ms: every second
  // holds 50 tokens; counting the opener too would make the first second 51 (2% of it), a slope.
  std::vector<RequestRecord> rs{stream(0, 100, 20, 400, 1, RequestEnd::Cut)};
  const auto bins = tokens_per_second(rs, {100 * kMs, 5100 * kMs});
  ASSERT_EQ(bins.size(), 5u);
  for (double b : bins) EXPECT_NEAR(b, 50.0, 1e-9);
}

TEST(WindowBins, ASecondWaitsForEveryGeneratingStreamsNextChunk) {
  // One stream still generating, its last chunk at 7.49 s; one that finished at 2 s. The window
  // is at 9.2 s: seconds 0-6 are known, second 7 is not (the gap after 7.49 s is not yet spread).
  std::vector<RequestRecord> rs{stream(0, 10, 20, 375, 1, RequestEnd::Running),
                                stream(0, 10, 20, 100, 1, RequestEnd::Finished)};
  rs[0].end_ns = -1;
  const auto bins = tokens_per_second(rs, {0, 9200 * kMs});
  ASSERT_EQ(bins.size(), 7u);
  EXPECT_NEAR(bins[0], 1 + 49.5 + 1 + 49.5, 1e-9);  // each first token at 10 ms, then 49.5 chunk gaps
  EXPECT_NEAR(bins[1], 50.0 + 49.5, 1e-9);          // the finished stream's last chunk was at 1.99 s
  EXPECT_NEAR(bins[6], 50.0, 1e-9);
  // Once the window is cut there and the stream is known to have ended, every second counts.
  rs[0].end = RequestEnd::Finished;
  rs[0].end_ns = rs[0].chunks.back().t_ns;
  EXPECT_EQ(tokens_per_second(rs, {0, 9200 * kMs}).size(), 9u);
}

}  // namespace
}  // namespace sm
