// Arrival schedules and length draws of `sweep`: the statistics a seeded schedule must have.
#include "workload/arrivals.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/clock.h"

namespace sm {
namespace {

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double sd_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

// Poisson arrivals at 50/s over 400 s: ~20,000 arrivals whose gaps are exponential with mean
// 20 ms (coefficient of variation 1), whose counts per second have variance ≈ mean, and which the
// same seed reproduces exactly.
TEST(Arrivals, PoissonHasExponentialGapsAndReproducesFromItsSeed) {
  Rng rng(42);
  const auto t = arrival_times_ns(ArrivalProcess::Poisson, 50, 400 * kNsPerS, 0, rng);
  ASSERT_GT(t.size(), 19000u);
  EXPECT_NEAR(static_cast<double>(t.size()), 20000, 600);  // 4.2 standard deviations
  std::vector<double> gaps;
  for (size_t i = 1; i < t.size(); ++i) {
    ASSERT_GE(t[i], t[i - 1]);
    gaps.push_back(static_cast<double>(t[i] - t[i - 1]) / 1e6);
  }
  EXPECT_NEAR(mean_of(gaps), 20.0, 0.6);
  EXPECT_NEAR(sd_of(gaps) / mean_of(gaps), 1.0, 0.03);
  // Exponential: P(gap > mean) = e^-1.
  double above = 0;
  for (double g : gaps) above += g > 20.0;
  EXPECT_NEAR(above / static_cast<double>(gaps.size()), std::exp(-1.0), 0.015);
  // Counts per 1 s bin: Poisson, variance ≈ mean (dispersion index 1).
  std::vector<double> counts(400, 0);
  for (int64_t x : t) counts[static_cast<size_t>(x / kNsPerS)] += 1;
  const double m = mean_of(counts), sd = sd_of(counts);
  EXPECT_NEAR(sd * sd / m, 1.0, 0.2);
  EXPECT_GE(t.front(), 0);
  EXPECT_LT(t.back(), 400 * kNsPerS);

  Rng same(42), other(43);
  EXPECT_EQ(arrival_times_ns(ArrivalProcess::Poisson, 50, 400 * kNsPerS, 0, same), t);
  EXPECT_NE(arrival_times_ns(ArrivalProcess::Poisson, 50, 400 * kNsPerS, 0, other), t);
}

TEST(Arrivals, ConstantIsEvenlySpacedFromZero) {
  Rng rng(1);
  const auto t = arrival_times_ns(ArrivalProcess::Constant, 4, 10 * kNsPerS, 0, rng);
  ASSERT_EQ(t.size(), 40u);
  for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t[i], static_cast<int64_t>(i) * 250 * kNsPerMs);
}

TEST(Arrivals, RequestCapAndEmptyCases) {
  Rng rng(7);
  EXPECT_EQ(arrival_times_ns(ArrivalProcess::Poisson, 100, 100 * kNsPerS, 25, rng).size(), 25u);
  EXPECT_EQ(arrival_times_ns(ArrivalProcess::Constant, 2, 100 * kNsPerS, 3, rng).size(), 3u);
  EXPECT_TRUE(arrival_times_ns(ArrivalProcess::Poisson, 0, kNsPerS, 0, rng).empty());
  EXPECT_TRUE(arrival_times_ns(ArrivalProcess::Constant, 5, 0, 0, rng).empty());
}

TEST(LengthDistribution, FixedNormalAndClipped) {
  Rng rng(9);
  auto fixed = parse_length_distribution("1K");
  ASSERT_TRUE(fixed.has_value());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(fixed->draw(rng), 1024);

  auto normal = parse_length_distribution("1024:256");
  ASSERT_TRUE(normal.has_value());
  EXPECT_EQ(normal->mean, 1024);
  EXPECT_EQ(normal->sd, 256);
  std::vector<double> v;
  for (int i = 0; i < 20000; ++i) v.push_back(static_cast<double>(normal->draw(rng)));
  EXPECT_NEAR(mean_of(v), 1024, 8);
  EXPECT_NEAR(sd_of(v), 256, 6);

  // Mostly below zero before clipping: every draw is still at least one token.
  LengthDistribution wide{2, 10};
  int64_t ones = 0;
  for (int i = 0; i < 5000; ++i) {
    const int64_t n = wide.draw(rng);
    ASSERT_GE(n, 1);
    ones += n == 1;
  }
  EXPECT_GT(ones, 2000);
}

TEST(LengthDistribution, RejectsWhatIsNotALength) {
  EXPECT_FALSE(parse_length_distribution("").has_value());
  EXPECT_FALSE(parse_length_distribution("0").has_value());
  EXPECT_FALSE(parse_length_distribution("abc").has_value());
  EXPECT_FALSE(parse_length_distribution("100:x").has_value());
  EXPECT_TRUE(parse_arrival_process("poisson").has_value());
  EXPECT_TRUE(parse_arrival_process("constant").has_value());
  EXPECT_FALSE(parse_arrival_process("bursty").has_value());
}

}  // namespace
}  // namespace sm
