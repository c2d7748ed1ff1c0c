#include "metrics/window_precision.h"

#include <gtest/gtest.h>

#include <vector>

namespace sm {
namespace {

TEST(WindowPrecision, ASteadyRateSettlesAndProjectsItself) {
  std::vector<double> bins(8, 1000.0);
  for (size_t i = 0; i < bins.size(); ++i) bins[i] += i % 2 ? 3 : -3;  // ±0.3% noise
  PrecisionCheck c = check_window_precision(bins, 30, 0.02);
  EXPECT_TRUE(c.precise_enough);
  EXPECT_NEAR(c.observed_tok_s, 1000.0, 1e-9);
  EXPECT_NEAR(c.projected_tok_s, 1000.0, 5.0);
  // The same window cannot promise 0.01%.
  EXPECT_FALSE(check_window_precision(bins, 30, 0.0001).precise_enough);
}

TEST(WindowPrecision, ADriftIsProjectedToTheFullWindowNotIgnored) {
  // 1000 tok/s falling by 2 tok/s every second: the full 30 s window measures 970, the first 10 s
  // measure 990 — 2.06% high. Not within 2%; within 3%.
  std::vector<double> bins;
  for (int i = 0; i < 10; ++i) bins.push_back(1000.0 - 2.0 * (i + 0.5));
  PrecisionCheck c = check_window_precision(bins, 30, 0.02);
  EXPECT_NEAR(c.observed_tok_s, 990.0, 1e-9);
  EXPECT_NEAR(c.projected_tok_s, 970.0, 1e-9);
  EXPECT_NEAR(c.drift_per_s, -2.0, 1e-12);
  EXPECT_FALSE(c.precise_enough);
  EXPECT_TRUE(check_window_precision(bins, 30, 0.03).precise_enough);
}

TEST(WindowPrecision, NeverPreciseOnFewerThanFourSeconds) {
  std::vector<double> bins(3, 1000.0);
  EXPECT_FALSE(check_window_precision(bins, 30, 0.5).precise_enough);
}

TEST(WindowPrecision, NoiseFarFromTheEndWidensTheProjection) {
  // ±5% noise over 6 s: extrapolating the trend to a 30 s window is too uncertain for 2%.
  std::vector<double> bins{1050, 950, 1050, 950, 1050, 950};
  PrecisionCheck c = check_window_precision(bins, 30, 0.02);
  EXPECT_FALSE(c.precise_enough);
  EXPECT_GT(c.half_width_tok_s, 20.0);
}

}  // namespace
}  // namespace sm
