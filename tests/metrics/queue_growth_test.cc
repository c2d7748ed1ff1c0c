// Saturation seen as queueing, on hand-made records (injected times, no clock): TTFT that grows
// through the window, requests that pile up in flight while TTFT stays flat (a batching server
// slowing every stream), and the cases that must not read as saturation.
#include "metrics/queue_growth.h"

#include <gtest/gtest.h>

#include "metrics/rate_metrics.h"
#include "support/fifo_queue.h"
#include "workload/arrivals.h"

namespace sm {
namespace {

// A request due at `at_ms` whose first token came `ttft_ms` later and that ended `e2e_ms` after
// its intended start (two tokens: the first and the last).
TimedRequest timed(double at_ms, double ttft_ms, double e2e_ms) {
  TimedRequest t;
  t.intended_ns = static_cast<int64_t>(at_ms * 1e6);
  RequestRecord& r = t.record;
  r.send_ns = t.intended_ns;
  r.max_tokens = 2;
  r.first_token_ns = t.intended_ns + static_cast<int64_t>(ttft_ms * 1e6);
  r.end_ns = t.intended_ns + static_cast<int64_t>(e2e_ms * 1e6);
  r.chunks = {{r.first_token_ns, 1}, {r.end_ns, 1}};
  r.tokens = 2;
  r.end = RequestEnd::Finished;
  return t;
}

// 200 arrivals 50 ms apart: a 10 s window.
constexpr int kArrivals = 200;
constexpr double kGapMs = 50;
constexpr int64_t kWindowNs = 10 * kNsPerS;

TEST(QueueGrowth, GrowingTtftIsSaturation) {
  std::vector<TimedRequest> rs;
  for (int i = 0; i < kArrivals; ++i) rs.push_back(timed(i * kGapMs, 50 + 10.0 * i, 300 + 10.0 * i));
  const QueueGrowth g = measure_queue_growth(rs);
  ASSERT_TRUE(g.first_third_ttft_ms && g.last_third_ttft_ms);
  EXPECT_DOUBLE_EQ(*g.first_third_ttft_ms, 50 + 10 * 32.5);  // median of arrivals 0…65
  EXPECT_DOUBLE_EQ(*g.last_third_ttft_ms, 50 + 10 * 166.5);  // of 134…199
  const std::string why = queueing_saturation(g, kWindowNs, QueueingRule{});
  EXPECT_NE(why.find("queueing grew: median TTFT 1715 ms in the last third of arrivals, 375 ms in the first"),
            std::string::npos)
      << why;
  // Just over twice the first third's (26.5 -> 53.3 ms), but by less than 5% of the window
  // (500 ms): noise, not a queue.
  std::vector<TimedRequest> small;
  for (int i = 0; i < kArrivals; ++i) small.push_back(timed(i * kGapMs, 20 + 0.2 * i, 300));
  EXPECT_EQ(queueing_saturation(measure_queue_growth(small), kWindowNs, QueueingRule{}), "");
}

// TTFT stays at 50 ms while every answer takes longer than the one before: the server batches
// more and more streams, and the requests in flight climb through the window.
TEST(QueueGrowth, RequestsPilingUpIsSaturationEvenWithFlatTtft) {
  std::vector<TimedRequest> rs;
  for (int i = 0; i < kArrivals; ++i) rs.push_back(timed(i * kGapMs, 50, 300 + 40.0 * i));
  const QueueGrowth g = measure_queue_growth(rs);
  ASSERT_TRUE(g.middle_third_in_flight && g.last_third_in_flight && g.first_third_e2e_ms);
  EXPECT_DOUBLE_EQ(*g.first_third_ttft_ms, *g.last_third_ttft_ms);
  EXPECT_GT(*g.last_third_in_flight - *g.middle_third_in_flight, 25);
  const std::string why = queueing_saturation(g, kWindowNs, QueueingRule{});
  EXPECT_TRUE(why.starts_with("requests piled up: ")) << why;

  SweepPoint p;
  compute_rate_point(rs, 0, kWindowNs, SloTargets{}, SaturationRule{}, p);
  EXPECT_TRUE(p.saturated);
  ASSERT_TRUE(p.in_flight_growth && p.queue_growth_ms);
  EXPECT_DOUBLE_EQ(*p.in_flight_growth, *g.last_third_in_flight - *g.middle_third_in_flight);
  EXPECT_DOUBLE_EQ(*p.queue_growth_ms, 0);
}

TEST(QueueGrowth, AServerThatKeepsUpIsNotSaturated) {
  // Every answer takes 1 s: 20 in flight from the first second on, however long the window.
  std::vector<TimedRequest> rs;
  for (int i = 0; i < kArrivals; ++i) rs.push_back(timed(i * kGapMs, 50 + (i % 7) * 5, 1000));
  const QueueGrowth g = measure_queue_growth(rs);
  EXPECT_DOUBLE_EQ(*g.middle_third_in_flight, 19);  // the 19 before it; it is not counted itself
  EXPECT_DOUBLE_EQ(*g.last_third_in_flight, 19);
  EXPECT_EQ(queueing_saturation(g, kWindowNs, QueueingRule{}), "");
}

// Answers longer than a third of the window: a server that keeps up has not levelled off by
// the middle third, so the in-flight count climbs without a queue; the rule stands aside.
TEST(QueueGrowth, InFlightRuleNeedsAnswersShorterThanAThirdOfTheWindow) {
  std::vector<TimedRequest> rs;
  for (int i = 0; i < kArrivals; ++i) rs.push_back(timed(i * kGapMs, 50, 8000));
  const QueueGrowth g = measure_queue_growth(rs);
  EXPECT_GT(*g.last_third_in_flight - *g.middle_third_in_flight, 40);
  EXPECT_EQ(queueing_saturation(g, kWindowNs, QueueingRule{}), "");
}

TEST(QueueGrowth, TooFewArrivalsSayNothing) {
  std::vector<TimedRequest> rs;
  for (int i = 0; i < 8; ++i) rs.push_back(timed(i * 1000.0, 50 + 1000.0 * i, 100 + 1000.0 * i));
  EXPECT_EQ(queueing_saturation(measure_queue_growth(rs), kWindowNs, QueueingRule{}), "");
  rs.push_back(timed(8000, 50 + 8000, 100 + 8000));
  EXPECT_NE(queueing_saturation(measure_queue_growth(rs), kWindowNs, QueueingRule{}), "");
}

// A request that never got a first token waited until the rate's last end; one that never ended
// stays in flight.
TEST(QueueGrowth, UnansweredRequestsCountAsStillWaiting) {
  std::vector<TimedRequest> rs;
  for (int i = 0; i < 9; ++i) rs.push_back(timed(i * 100.0, 50, 200));
  for (int i = 6; i < 9; ++i) {
    rs[i].record.first_token_ns = -1;
    rs[i].record.end_ns = -1;
    rs[i].record.chunks.clear();
    rs[i].record.end = RequestEnd::Running;
  }
  const QueueGrowth g = measure_queue_growth(rs);
  // The last end is request 5's, at 700 ms: 6 (due at 600) waited 100 ms, 7 and 8 none.
  EXPECT_DOUBLE_EQ(*g.last_third_ttft_ms, 0);
  EXPECT_DOUBLE_EQ(*g.first_third_ttft_ms, 50);
  // In flight at 6's arrival: 5; at 7's: 6 (never ended); at 8's: 6 and 7.
  EXPECT_DOUBLE_EQ(*g.last_third_in_flight, (1 + 1 + 2) / 3.0);
  EXPECT_DOUBLE_EQ(*g.middle_third_in_flight, 1);
}

// An exact first-come-first-served queue (40/s) under Poisson arrivals: at 80% of its capacity,
// over many seeds, neither queueing rule fires; at 120% both see it.
TEST(QueueGrowth, PoissonBurstsBelowCapacityAreNotSaturation) {
  test::FifoService service{10 * kNsPerMs, 5 * kNsPerMs, 4};
  const int64_t window_ns = 20 * kNsPerS;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed);
    const auto records = test::fifo_records(arrival_times_ns(ArrivalProcess::Poisson, 32, window_ns, 0, rng), service);
    EXPECT_EQ(queueing_saturation(measure_queue_growth(records), window_ns, QueueingRule{}), "") << "seed " << seed;
  }
  Rng rng(1);
  const auto over = test::fifo_records(arrival_times_ns(ArrivalProcess::Poisson, 48, window_ns, 0, rng), service);
  EXPECT_TRUE(queueing_saturation(measure_queue_growth(over), window_ns, QueueingRule{}).starts_with("queueing grew"));
}

}  // namespace
}  // namespace sm
