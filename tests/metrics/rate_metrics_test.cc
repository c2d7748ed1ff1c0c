// One rate's figures from its records: latencies from the intended start, goodput against the
// SLOs, and the saturation rule, on hand-made records and on an exact first-come-first-served queue.
#include "metrics/rate_metrics.h"

#include <gtest/gtest.h>

#include "support/fifo_queue.h"

namespace sm {
namespace {

TimedRequest request(int64_t intended_ms, int64_t send_ms, int64_t first_ms, int64_t tokens, int64_t gap_ms,
                     RequestEnd end = RequestEnd::Finished) {
  TimedRequest t;
  t.intended_ns = intended_ms * kNsPerMs;
  RequestRecord& r = t.record;
  r.send_ns = send_ms * kNsPerMs;
  r.max_tokens = tokens;
  for (int64_t k = 0; k < tokens; ++k) r.chunks.push_back({(first_ms + k * gap_ms) * kNsPerMs, 1});
  r.tokens = tokens;
  r.first_token_ns = tokens > 0 ? first_ms * kNsPerMs : -1;
  r.end_ns = (first_ms + (tokens - 1) * gap_ms) * kNsPerMs;
  r.end = end;
  return t;
}

// A request due at 0 but sent at 300 ms (the client was late) whose first token came at 350 ms:
// its TTFT is 350 ms, not 50.
TEST(RateMetrics, LatencyCountsFromTheIntendedStart) {
  const RequestLatency l = request_latency(request(0, 300, 350, 11, 10));
  ASSERT_TRUE(l.ttft_ms && l.tpot_ms && l.e2e_ms);
  EXPECT_DOUBLE_EQ(*l.ttft_ms, 350);
  EXPECT_DOUBLE_EQ(*l.tpot_ms, 10);  // 100 ms over 10 gaps
  EXPECT_DOUBLE_EQ(*l.e2e_ms, 450);
  EXPECT_DOUBLE_EQ(l.send_lag_ms, 300);
  EXPECT_TRUE(l.completed);
  // One token: no TPOT; a failed request has no E2E and never meets an SLO.
  EXPECT_FALSE(request_latency(request(0, 0, 20, 1, 0)).tpot_ms.has_value());
  const RequestLatency failed = request_latency(request(0, 0, 20, 3, 5, RequestEnd::Failed));
  EXPECT_FALSE(failed.e2e_ms.has_value());
  EXPECT_FALSE(meets_slo(failed, {}));
}

TEST(RateMetrics, GoodputCountsRequestsWithinBothSlos) {
  std::vector<TimedRequest> rs = {
      request(0, 0, 50, 11, 10),      // TTFT 50, TPOT 10: within
      request(250, 250, 400, 11, 10), // TTFT 150: over the TTFT target
      request(500, 500, 540, 11, 30), // TPOT 30: over the TPOT target
      request(750, 750, 790, 11, 10), // within
  };
  SweepPoint p;
  compute_rate_point(rs, 0, kNsPerS, SloTargets{100.0, 20.0}, SaturationRule{}, p);
  EXPECT_EQ(p.requests, 4);
  EXPECT_EQ(p.completed, 4);
  EXPECT_DOUBLE_EQ(p.offered_rps, 4);
  ASSERT_TRUE(p.slo_met_fraction && p.goodput_rps && p.achieved_rps);
  EXPECT_DOUBLE_EQ(*p.slo_met_fraction, 0.5);
  // 4 completions over the 1 s arrival window (the last at 890 ms, inside it). Goodput is the
  // share within the SLOs of that rate, output tok/s its mean output tokens per completed request.
  EXPECT_NEAR(*p.achieved_rps, 4.0, 1e-9);
  EXPECT_NEAR(*p.goodput_rps, 4.0 * 2 / 4, 1e-9);
  EXPECT_NEAR(*p.output_tok_s, 4.0 * 11, 1e-9);
  EXPECT_DOUBLE_EQ(p.ttft_ms->p50, 45);  // of 40, 40, 50, 150
  // One completion: completed over the window, or up to the last end when it ran past it.
  std::vector<TimedRequest> one = {request(0, 0, 50, 11, 10)};
  compute_rate_point(one, 0, kNsPerS, SloTargets{}, SaturationRule{}, p);
  EXPECT_NEAR(*p.achieved_rps, 1.0, 1e-9);
  compute_rate_point(one, 0, kNsPerS / 10, SloTargets{}, SaturationRule{}, p);
  EXPECT_NEAR(*p.achieved_rps, 1 / 0.15, 1e-9);
  // Without targets, every completed request counts.
  compute_rate_point(rs, 0, kNsPerS, SloTargets{}, SaturationRule{}, p);
  EXPECT_DOUBLE_EQ(*p.slo_met_fraction, 1.0);
}

// The rate's requests go through the output checks as a cell's do: two of four looping is a loop.
TEST(RateMetrics, OutputChecksOfTheRatesRequests) {
  std::vector<TimedRequest> rs = {request(0, 0, 50, 11, 10), request(250, 250, 300, 11, 10), request(500, 500, 540, 11, 10),
                                  request(750, 750, 790, 11, 10)};
  SweepPoint p;
  compute_rate_point(rs, 0, kNsPerS, SloTargets{}, SaturationRule{}, p);
  ASSERT_TRUE(p.output_check.has_value());
  EXPECT_EQ(p.output_check->requests, 4);
  EXPECT_EQ(p.output_check->verdict, "ok");
  rs[1].record.output_flaw = OutputFlaw::Empty;
  rs[2].record.output_flaw = OutputFlaw::Repeat;
  rs[2].record.output_excerpt = "ab";
  compute_rate_point(rs, 0, kNsPerS, SloTargets{}, SaturationRule{}, p);
  EXPECT_EQ(p.output_check->verdict, "loop");
  EXPECT_EQ(p.output_check->flaw, "repeat");  // the example with an excerpt, before the one without text
  EXPECT_EQ(p.output_check->excerpt, "ab");
  EXPECT_EQ(p.output_check->empty, 1);
  // No request brought output: nothing checked, no summary.
  std::vector<TimedRequest> none = {request(0, 0, 50, 0, 10, RequestEnd::Failed)};
  compute_rate_point(none, 0, kNsPerS, SloTargets{}, SaturationRule{}, p);
  EXPECT_FALSE(p.output_check.has_value());
}

// A first-come-first-served server of 25 ms per request (40/s): at 20/s (constant arrivals) it
// keeps up and every TTFT is its prefill; at 80/s the queue grows and the second half of the window
// completes only ~40/s.
TEST(RateMetrics, SaturationRuleOnAnExactQueue) {
  test::FifoService service{10 * kNsPerMs, 5 * kNsPerMs, 4};
  ASSERT_DOUBLE_EQ(service.capacity_rps(), 40);
  auto at_rate = [&](double rate) {
    std::vector<int64_t> arrivals;
    for (int64_t t = 0; t < 10 * kNsPerS; t += static_cast<int64_t>(1e9 / rate)) arrivals.push_back(t);
    SweepPoint p;
    compute_rate_point(test::fifo_records(arrivals, service), 0, 10 * kNsPerS, SloTargets{50.0, {}}, SaturationRule{}, p);
    return p;
  };
  const SweepPoint light = at_rate(20);
  EXPECT_FALSE(light.saturated) << light.saturation_reason;
  EXPECT_DOUBLE_EQ(light.ttft_ms->p99, 10);
  EXPECT_DOUBLE_EQ(light.tpot_ms->p50, 5);
  EXPECT_DOUBLE_EQ(light.e2e_ms->p50, 25);
  EXPECT_DOUBLE_EQ(*light.slo_met_fraction, 1.0);
  EXPECT_NEAR(*light.steady_completion_rps, 20, 0.5);
  EXPECT_NEAR(*light.queue_growth_ms, 0, 1e-9);

  const SweepPoint heavy = at_rate(80);
  EXPECT_TRUE(heavy.saturated);
  EXPECT_NEAR(*heavy.steady_completion_rps, 40, 0.5);
  EXPECT_GT(*heavy.queue_growth_ms, 3000);  // the last quarter waits seconds
  EXPECT_LT(*heavy.slo_met_fraction, 0.05);
  EXPECT_NEAR(*heavy.achieved_rps, 40, 0.5);
}

// Issue 31 point 6: answers that come in a bunch (a server that batches, a client that reads
// late) read "achieved 211/s" at an offered 16/s when the rate was counted between the first and
// the last completion. Over the arrival window it cannot exceed what was offered.
TEST(RateMetrics, AchievedNeverExceedsOfferedWhenAnswersBunch) {
  std::vector<TimedRequest> rs;
  for (int i = 0; i < 16; ++i) {
    // Arrivals over one second at 16/s; every answer lands within 70 ms of 900 ms.
    TimedRequest t = request(i * 62, i * 62, 900 + i * 4, 2, 1);
    rs.push_back(t);
  }
  SweepPoint p;
  compute_rate_point(rs, 0, kNsPerS, SloTargets{}, SaturationRule{}, p);
  ASSERT_EQ(p.completed, 16);
  ASSERT_TRUE(p.achieved_rps);
  EXPECT_LE(*p.achieved_rps, p.offered_rps + 1e-9);
  EXPECT_NEAR(*p.achieved_rps, 16.0, 1e-9);
}

TEST(RateMetrics, HighestRateWithinSlo) {
  std::vector<SweepPoint> points(4);
  points[0].rate_rps = 1, points[0].slo_met_fraction = 1.0;
  points[1].rate_rps = 2, points[1].slo_met_fraction = 0.95;
  points[2].rate_rps = 4, points[2].slo_met_fraction = 0.5;
  points[3].rate_rps = 3, points[3].slo_met_fraction = 0.99, points[3].status = CellStatus::Interrupted;
  EXPECT_EQ(max_rate_within_slo(points, 0.9), 2.0);
  EXPECT_EQ(max_rate_within_slo(points, 0.99), 1.0);
  points[0].slo_met_fraction = 0.1;
  points[1].slo_met_fraction = 0.1;
  EXPECT_FALSE(max_rate_within_slo(points, 0.9).has_value());
}

}  // namespace
}  // namespace sm
