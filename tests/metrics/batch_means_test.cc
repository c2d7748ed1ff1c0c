#include "metrics/batch_means.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/rng.h"

namespace sm {
namespace {

TEST(BatchMeans, StudentQuantiles) {
  EXPECT_DOUBLE_EQ(student_t_975(1), 12.706);
  EXPECT_DOUBLE_EQ(student_t_975(9), 2.262);
  EXPECT_NEAR(student_t_975(31), 2.0395, 0.0005);
  EXPECT_NEAR(student_t_975(60), 2.0003, 0.0005);
  EXPECT_NEAR(student_t_975(1000), 1.9623, 0.0005);
}

TEST(BatchMeans, ConstantRateHasZeroWidth) {
  std::vector<double> tokens(30, 100.0), seconds(30, 1.0);
  auto ci = batch_means_interval(tokens, seconds);
  ASSERT_TRUE(ci);
  EXPECT_DOUBLE_EQ(ci->mean, 100.0);
  EXPECT_DOUBLE_EQ(ci->half_width, 0.0);
  EXPECT_EQ(ci->batches, 30);
}

TEST(BatchMeans, TooFewBinsGiveNoInterval) {
  std::vector<double> tokens{10, 12}, seconds{1, 1};
  EXPECT_FALSE(batch_means_interval(tokens, seconds));
  std::vector<double> zero(5, 0.0);
  EXPECT_FALSE(batch_means_interval(zero, zero));
}

TEST(BatchMeans, AntiCorrelatedBinsGetTheTextbookInterval) {
  // Alternating 90/110: mean 100, sd of 30 values = sqrt(100 * 30/29), lag-1 autocorrelation
  // about −1 (anti-correlated: no widening, no inflation).
  std::vector<double> tokens, seconds(30, 1.0);
  for (int i = 0; i < 30; ++i) tokens.push_back(i % 2 ? 110 : 90);
  auto ci = batch_means_interval(tokens, seconds);
  ASSERT_TRUE(ci);
  EXPECT_DOUBLE_EQ(ci->mean, 100.0);
  EXPECT_EQ(ci->bins_per_batch, 1);
  const double sd = std::sqrt(100.0 * 30 / 29);
  EXPECT_NEAR(ci->half_width, 2.045 * sd / std::sqrt(30.0), 1e-9);
}

TEST(BatchMeans, CorrelatedBinsAreWidenedAndTheIntervalCoversTheTruth) {
  // An AR(1) series with ρ = 0.8 around 1,000 tok/s: 1 s bins are strongly correlated, so the
  // naive interval is too narrow. Over 400 seeded windows the batch-means interval covers the
  // true mean at close to its nominal 95%; the naive one does not.
  Rng rng(42);
  int covered = 0, naive_covered = 0;
  const int windows = 400;
  for (int w = 0; w < windows; ++w) {
    std::vector<double> tokens, seconds(64, 1.0);
    double x = 0;
    for (int i = 0; i < 64; ++i) {
      // Sum of 12 uniforms − 6: a cheap unit normal.
      double z = -6;
      for (int j = 0; j < 12; ++j) z += rng.next_double();
      x = 0.8 * x + 20 * z;
      tokens.push_back(1000 + x);
    }
    auto ci = batch_means_interval(tokens, seconds);
    ASSERT_TRUE(ci);
    if (std::fabs(ci->mean - 1000) <= ci->half_width) ++covered;
    double var = 0;
    for (double t : tokens) var += (t - ci->mean) * (t - ci->mean);
    const double naive = 2.0 * std::sqrt(var / 63 / 64);
    if (std::fabs(ci->mean - 1000) <= naive) ++naive_covered;
    EXPECT_GT(ci->bins_per_batch, 1);
  }
  EXPECT_GE(covered, windows * 88 / 100);
  EXPECT_LT(naive_covered, windows * 80 / 100);
}

TEST(BatchMeans, ShortCorrelatedWindowIsInflatedNotTrusted) {
  // Five 1 s bins on a steady decline (lag-1 autocorrelation high, too few bins to widen): the
  // interval is wider than the plain one by the AR(1) factor.
  std::vector<double> tokens{110, 105, 100, 95, 90}, seconds(5, 1.0);
  auto ci = batch_means_interval(tokens, seconds);
  ASSERT_TRUE(ci);
  EXPECT_EQ(ci->bins_per_batch, 1);
  // Deviations 10, 5, 0, −5, −10: variance 250/4, lag-1 autocorrelation (50 + 50) / 250 = 0.4,
  // bias-corrected 0.4 + (1 + 1.2) / 5 = 0.84.
  EXPECT_NEAR(ci->lag1_autocorrelation, 0.4, 1e-12);
  const double plain = student_t_975(4) * std::sqrt(62.5 / 5);
  EXPECT_NEAR(ci->half_width, plain * std::sqrt(1.84 / 0.16), 1e-9);
}

}  // namespace
}  // namespace sm

namespace sm {
namespace {

TEST(BatchMeans, ASteadyDriftIsNotNoise) {
  // 2,145 tok/s falling by 18 tok/s every second, ±2 of noise: as noise the drift would give an
  // interval of about ±10%; taken about its line, the interval is the noise's.
  std::vector<double> tokens, seconds(15, 1.0);
  for (int i = 0; i < 15; ++i) tokens.push_back(2145 - 18.0 * i + (i % 2 ? 2 : -2));
  auto raw = batch_means_interval(tokens, seconds);
  auto detrended = batch_means_interval(tokens, seconds, true);
  ASSERT_TRUE(raw && detrended);
  EXPECT_DOUBLE_EQ(detrended->mean, raw->mean);
  EXPECT_GT(raw->half_width, 0.05 * raw->mean);
  EXPECT_LT(detrended->half_width, 0.005 * detrended->mean);
}

}  // namespace
}  // namespace sm
