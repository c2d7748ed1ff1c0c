// The rate plan of `sweep`: fixed lists, and `--rates auto`'s search against an exact queue model
// (no network, no clock): it must find the model's saturation rate and sweep below it.
#include "bench/sweep.h"

#include <gtest/gtest.h>

#include "metrics/rate_metrics.h"
#include "support/fifo_queue.h"
#include "workload/arrivals.h"

namespace sm {
namespace {

// Measures a rate on the model: Poisson arrivals (seeded) over 20 s, records from the queue.
MeasureRate model_measure(const test::FifoService& service, std::vector<double>& asked, uint64_t seed = 5) {
  return [&service, &asked, seed](double rate, bool search) {
    asked.push_back(rate);
    Rng rng(seed + asked.size());
    const int64_t window_ns = 20 * kNsPerS;
    SweepPoint p;
    p.rate_rps = rate;
    p.search = search;
    compute_rate_point(test::fifo_records(arrival_times_ns(ArrivalProcess::Poisson, rate, window_ns, 0, rng), service),
                       0, window_ns, SloTargets{100.0, {}}, SaturationRule{}, p);
    return p;
  };
}

TEST(SweepPlan, ParsesRates) {
  auto r = parse_rates("0.5,1,2");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, (std::vector<double>{0.5, 1, 2}));
  EXPECT_TRUE(parse_rates("auto")->empty());
  EXPECT_FALSE(parse_rates("0").has_value());
  EXPECT_FALSE(parse_rates("1,,2").has_value());
  EXPECT_FALSE(parse_rates("fast").has_value());
  EXPECT_EQ(rates_below(40, 5), (std::vector<double>{8, 16, 24, 32, 38}));
}

TEST(SweepPlan, FixedRatesAreMeasuredInOrder) {
  test::FifoService service;
  std::vector<double> asked;
  SweepInfo sweep;
  int saves = 0;
  RatePlan plan;
  plan.rates = {4, 1, 2};
  run_sweep(plan, model_measure(service, asked), [&](const SweepInfo&) { ++saves; }, sweep);
  EXPECT_EQ(asked, (std::vector<double>{4, 1, 2}));
  EXPECT_EQ(saves, 3);
  ASSERT_EQ(sweep.points.size(), 3u);
  EXPECT_FALSE(sweep.saturation_rps.has_value());
  EXPECT_EQ(sweep.max_rate_within_slo_rps, 4.0);
}

// 25 ms per request: saturation at 40/s. Doubling from 1 reaches 64/s (saturated), whose
// second half completes ~40/s: the estimate; then 8, 16, 24, 32 and 38/s.
TEST(SweepPlan, AutoFindsTheSaturationRateOfAKnownServer) {
  test::FifoService service{10 * kNsPerMs, 5 * kNsPerMs, 4};
  std::vector<double> asked;
  SweepInfo sweep;
  RatePlan plan;
  plan.auto_points = 5;
  auto notes = run_sweep(plan, model_measure(service, asked), {}, sweep);
  EXPECT_TRUE(notes.empty());
  ASSERT_TRUE(sweep.saturation_rps.has_value());
  EXPECT_NEAR(*sweep.saturation_rps, 40, 2);
  ASSERT_GE(asked.size(), 7u + 5u);
  EXPECT_EQ(std::vector<double>(asked.begin(), asked.begin() + 7), (std::vector<double>{1, 2, 4, 8, 16, 32, 64}));
  for (size_t i = 0; i < 7; ++i) EXPECT_TRUE(sweep.points[i].search);
  for (size_t i = 0; i < 6; ++i) EXPECT_FALSE(sweep.points[i].saturated) << sweep.points[i].saturation_reason;
  EXPECT_TRUE(sweep.points[6].saturated);
  ASSERT_EQ(sweep.points.size(), 12u);
  for (size_t i = 7; i < 12; ++i) {
    EXPECT_FALSE(sweep.points[i].search);
    EXPECT_LT(sweep.points[i].rate_rps, *sweep.saturation_rps);
  }
  EXPECT_NEAR(sweep.points.back().rate_rps, 0.95 * *sweep.saturation_rps, 1e-9);
  // 100 ms TTFT target: met at every rate well below saturation, not at 64/s.
  ASSERT_TRUE(sweep.max_rate_within_slo_rps.has_value());
  EXPECT_LT(*sweep.max_rate_within_slo_rps, 40);
  EXPECT_GE(*sweep.max_rate_within_slo_rps, 24);
}

TEST(SweepPlan, AutoSaysSoWhenTheServerNeverSaturates) {
  test::FifoService fast{kNsPerMs / 10, kNsPerMs / 10, 2};  // 5,000/s
  std::vector<double> asked;
  SweepInfo sweep;
  RatePlan plan;
  plan.auto_start_rps = 4;
  plan.auto_max_rps = 40;
  plan.auto_points = 2;
  auto notes = run_sweep(plan, model_measure(fast, asked), {}, sweep);
  EXPECT_EQ(asked, (std::vector<double>{4, 8, 16, 32, 16, 30.4}));
  EXPECT_FALSE(sweep.saturation_rps.has_value());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("kept up"), std::string::npos);
}

// A measure that needs no model: rates from `saturated_from` up saturate (queueing), and a
// saturated rate sustains `sustained_rps`.
MeasureRate scripted_measure(double saturated_from, double sustained_rps, std::vector<double>& asked) {
  return [=, &asked](double rate, bool search) {
    asked.push_back(rate);
    SweepPoint p;
    p.rate_rps = rate;
    p.search = search;
    p.offered_rps = rate;
    p.saturated = rate >= saturated_from;
    p.achieved_rps = p.saturated ? sustained_rps : rate;
    p.steady_completion_rps = p.achieved_rps;
    if (p.saturated) p.saturation_reason = "queueing grew: median TTFT 5000 ms in the last third of arrivals, 80 ms in the first";
    return p;
  };
}

// Issue 31 point 6: once a listed rate saturates, the higher ones are not measured (they took
// minutes each, far past saturation); lower ones later in the list still are.
TEST(SweepPlan, FixedRatesAboveASaturatedRateAreSkipped) {
  std::vector<double> asked;
  SweepInfo sweep;
  RatePlan plan;
  plan.rates = {1, 8, 16, 4, 32};
  auto notes = run_sweep(plan, scripted_measure(8, 7, asked), {}, sweep);
  EXPECT_EQ(asked, (std::vector<double>{1, 8, 4}));
  EXPECT_EQ(sweep.skipped_rates_rps, (std::vector<double>{16, 32}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("saturated at 8 requests/s (queueing grew"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("not measured: 16/s, 32/s"), std::string::npos) << notes[0];
}

// --rates auto: the rates below the estimate stop at one that saturates too (the estimate was
// high); the search's own saturated rate does not skip them.
TEST(SweepPlan, AutoStopsBelowTheEstimateWhenALowerRateSaturates) {
  std::vector<double> asked;
  SweepInfo sweep;
  RatePlan plan;
  plan.auto_start_rps = 8;
  plan.auto_points = 5;
  // 16/s saturates, sustaining 15: the rates below are 3, 6, 9, 12, 14.25; 12 saturates.
  auto notes = run_sweep(plan, scripted_measure(12, 15, asked), {}, sweep);
  ASSERT_TRUE(sweep.saturation_rps.has_value());
  EXPECT_DOUBLE_EQ(*sweep.saturation_rps, 15);
  EXPECT_EQ(asked, (std::vector<double>{8, 16, 3, 6, 9, 12}));
  EXPECT_EQ(sweep.skipped_rates_rps, (std::vector<double>{14.25}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("saturated at 12 requests/s"), std::string::npos) << notes[0];
}

// The estimate never exceeds the saturated rate itself (a burst can complete more than asked),
// nor falls below the highest rate that kept up.
TEST(SweepPlan, SaturationEstimateIsBetweenTheLastGoodRateAndTheSaturatedOne) {
  std::vector<SweepPoint> points(2);
  points[0].rate_rps = 8;
  points[1].rate_rps = 16;
  points[1].saturated = true;
  points[1].steady_completion_rps = 19;
  EXPECT_EQ(saturation_estimate(points), 16.0);
  points[1].steady_completion_rps = 5;
  points[1].achieved_rps = 6;
  EXPECT_EQ(saturation_estimate(points), 8.0);
  points[1].achieved_rps = 11;
  EXPECT_EQ(saturation_estimate(points), 11.0);
}

TEST(SweepPlan, StopsAfterAnInterruptedRate) {
  std::vector<double> asked;
  SweepInfo sweep;
  RatePlan plan;
  plan.rates = {1, 2, 3};
  run_sweep(plan,
            [&](double rate, bool) {
              asked.push_back(rate);
              SweepPoint p;
              p.rate_rps = rate;
              if (rate == 2) p.status = CellStatus::Interrupted;
              return p;
            },
            {}, sweep);
  EXPECT_EQ(asked, (std::vector<double>{1, 2}));
  EXPECT_EQ(sweep.points.size(), 2u);
}

}  // namespace
}  // namespace sm
