// Adaptive windows' projection (issue 14 part 2): what the whole --duration window would measure,
// from the first seconds of it.
#include "metrics/window_precision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <span>
#include <vector>

namespace sm {
namespace {

// Tokens in 1 s bins [i, i+1) of a rate 1/(alpha + beta·t), and its mean over [0, full_s].
std::vector<double> reciprocal_bins(double alpha, double beta, int n) {
  std::vector<double> bins;
  for (int i = 0; i < n; ++i) bins.push_back(std::log((alpha + beta * (i + 1)) / (alpha + beta * i)) / beta);
  return bins;
}
double reciprocal_mean(double alpha, double beta, double full_s) {
  return std::log((alpha + beta * full_s) / alpha) / (beta * full_s);
}

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

TEST(WindowPrecision, ContextGrowthIsProjectedToTheFullWindowsMean) {
  // Seconds per token growing linearly (the streams' contexts grow): 1 ms + 20 µs per second.
  // The first 8 s run 7% faster than the full 30 s window; the projection is its mean, and a
  // clean trend settles however large the drift.
  const auto bins = reciprocal_bins(1e-3, 2e-5, 8);
  const double full = reciprocal_mean(1e-3, 2e-5, 30);
  PrecisionCheck c = check_window_precision(bins, 30, 0.02);
  EXPECT_GT(c.observed_tok_s / full - 1, 0.06);
  EXPECT_NEAR(c.projected_tok_s / full, 1.0, 2e-4);
  EXPECT_LT(c.drift_per_s, 0);
  EXPECT_TRUE(c.precise_enough);
}

TEST(WindowPrecision, ARateThatSlowsLikeASquareRootIsProjectedWithinOnePercent) {
  // A lock-step closed loop: time per token τ with dτ/dt ∝ 1/τ, i.e. τ = √(τ0² + k·t). The model
  // (τ linear in t) is not exact; from 8 of 30 s the projection stays within 1% while the
  // observed mean is 9% high (docs/METRICS.md, "Adaptive windows").
  const double k = (std::pow(1 / 0.87, 2) - 1) / 15;  // the rate falls 13% in 15 s
  auto rate = [&](double t) { return 1000.0 / std::sqrt(1 + k * t); };
  auto mean = [&](double a, double b) {
    double s = 0;
    for (int j = 0; j < 1000; ++j) s += rate(a + (b - a) * (j + 0.5) / 1000);
    return s / 1000;
  };
  std::vector<double> bins;
  for (int i = 0; i < 8; ++i) bins.push_back(mean(i, i + 1));
  const double full = mean(0, 30);
  PrecisionCheck c = check_window_precision(bins, 30, 0.02);
  EXPECT_GT(c.observed_tok_s / full - 1, 0.09);
  EXPECT_LT(std::fabs(c.projected_tok_s / full - 1), 0.01);
}

TEST(WindowPrecision, NeverPreciseOnFewerThanFourSecondsOrAnEmptyBin) {
  std::vector<double> bins(3, 1000.0);
  EXPECT_FALSE(check_window_precision(bins, 30, 0.5).precise_enough);
  std::vector<double> stalled{1000, 1000, 0, 1000, 1000, 1000};
  EXPECT_FALSE(check_window_precision(stalled, 30, 0.5).precise_enough);
  EXPECT_EQ(check_window_precision(stalled, 30, 0.5).projected_tok_s, 0);
}

TEST(WindowPrecision, FractionalBinsShowTheTrendThatWholeStepsHid) {
  // The embedded engine at 16K context x 16 streams; its 30 s window measures 1,108.8 tok/s.
  // Counted by chunk arrival, 16 streams emit together and a second's count moves in steps of 16:
  // the first five seconds read 1,152 while the time per token already grows, and the check
  // believes a flat rate within its interval, 3.7% high.
  const std::vector<double> by_arrival{1153, 1152, 1152, 1152, 1152};
  const PrecisionCheck stepped = check_window_precision(by_arrival, 30, 0.02);
  EXPECT_GT(stepped.projected_tok_s / 1108.8 - 1, 0.03);
  EXPECT_TRUE(stepped.precise_enough);
  // The same engine's first five seconds spread over the gaps between chunks (tokens_per_second,
  // audited, docs/performance.md): the slope shows from the start and the window closes within
  // 0.5% of the full window.
  const std::vector<double> fractional{1160.8, 1155.7, 1152.1, 1148.2, 1144.5};
  const PrecisionCheck c5 = check_window_closing(fractional, 30, 0.02);
  EXPECT_TRUE(c5.closes());
  EXPECT_NEAR(c5.projected_tok_s / 1108.8, 1.0, 0.005);
  EXPECT_LT(c5.drift_per_s, 0);
}

TEST(WindowPrecision, ACleanTrendHoldsStillAndCloses) {
  // The projections from 4 to 7 of these 8 seconds agree with the 8 s one within 1%: it closes.
  const auto bins = reciprocal_bins(1e-3, 2e-5, 8);
  const PrecisionCheck c = check_window_closing(bins, 30, 0.02);
  EXPECT_TRUE(c.precise_enough);
  EXPECT_TRUE(c.held_still);
  EXPECT_TRUE(c.closes());
  EXPECT_NEAR(c.projected_tok_s / reciprocal_mean(1e-3, 2e-5, 30), 1.0, 2e-4);
}

TEST(WindowPrecision, AProjectionThatStillMovesDoesNotClose) {
  // A CPU llama-server's 1K x 2 window, audited (docs/performance.md, "Replaying closing rules"):
  // its first 15 s declined steadily, their interval was within 2%, and the projection (52.8) was
  // 5.8% above what the full window measured (49.9) — the server then slowed faster. Over the
  // last half of those 15 s the projection had moved by more than 1%: it does not close.
  const std::vector<double> bins{63, 62, 60, 61, 61, 58, 58, 58, 58, 54, 56, 54, 56, 52, 52};
  const PrecisionCheck c = check_window_closing(bins, 30, 0.02);
  EXPECT_TRUE(c.precise_enough);
  EXPECT_GT(c.projected_tok_s / 49.9 - 1, 0.05);
  EXPECT_FALSE(c.held_still);
  EXPECT_FALSE(c.closes());
}

TEST(WindowPrecision, AWanderingRateMostlyKeepsItsWindowOpen) {
  // Seeded: 400 windows of 30 s whose rate drifts (seconds per token +1% a second), wanders (a
  // random walk of 1% a second in log rate: what a CPU server sharing its cores looks like) with
  // 2% white noise. Each closes at the first second from 5 on that the rule allows; its
  // projection is compared with the 30 s window's own mean. The interval alone lets 15% of its
  // closings (56 of 374) land beyond 2%; holding still keeps that under 5% (4 of 183) (the
  // interval's promise), by keeping most windows open (docs/METRICS.md).
  std::mt19937_64 rng(141);
  std::normal_distribution<double> normal(0.0, 1.0);
  int closed_interval = 0, beyond_interval = 0, closed_held = 0, beyond_held = 0;
  for (int t = 0; t < 400; ++t) {
    std::vector<double> bins;
    double walk = 0, full = 0;
    for (int i = 0; i < 30; ++i) {
      walk += 0.01 * normal(rng);
      bins.push_back(80.0 / (1 + 0.01 * i) * std::exp(walk) * (1 + 0.02 * normal(rng)));
      full += bins.back() / 30;
    }
    bool interval_done = false, held_done = false;
    for (size_t n = 5; n <= bins.size() && !(interval_done && held_done); ++n) {
      const PrecisionCheck c = check_window_closing(std::span(bins).first(n), 30, 0.02);
      const bool beyond = std::fabs(c.projected_tok_s / full - 1) > 0.02;
      if (!interval_done && c.precise_enough) {
        interval_done = true;
        ++closed_interval;
        beyond_interval += beyond;
      }
      if (!held_done && c.closes()) {
        held_done = true;
        ++closed_held;
        beyond_held += beyond;
      }
    }
  }
  EXPECT_GT(beyond_interval, closed_interval / 10) << beyond_interval << " of " << closed_interval;
  EXPECT_LE(beyond_held, closed_held / 20) << beyond_held << " of " << closed_held;
  EXPECT_GT(closed_held, 40);  // it still closes where the rate happened to hold
}

TEST(WindowPrecision, NoiseFarFromTheEndWidensTheProjection) {
  // ±5% noise over 6 s: extrapolating the trend to a 30 s window is too uncertain for 2%.
  std::vector<double> bins{1050, 950, 1050, 950, 1050, 950};
  PrecisionCheck c = check_window_precision(bins, 30, 0.02);
  EXPECT_FALSE(c.precise_enough);
  EXPECT_GT(c.half_width_tok_s, 20.0);
}

TEST(WindowPrecision, TheIntervalCoversTheFullWindowsMeanUnderCorrelatedNoise) {
  // Seeded: a drifting rate with AR(1) noise (ρ 0.5, 2% per bin); 2,000 windows of 10 s. The 95%
  // interval covers the true 30 s mean in 85-89% of them (docs/METRICS.md: ~95% for
  // independent bins, less for strongly correlated ones); without the correction for correlation
  // it would be about 80%.
  std::mt19937_64 rng(14);
  std::normal_distribution<double> normal(0.0, 1.0);
  const double alpha = 1e-3, beta = 1e-5, full = reciprocal_mean(alpha, beta, 30);
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    auto bins = reciprocal_bins(alpha, beta, 10);
    double e = 0;
    for (auto& b : bins) {
      e = 0.5 * e + std::sqrt(1 - 0.25) * 0.02 * normal(rng);
      b *= 1 + e;
    }
    const PrecisionCheck c = check_window_precision(bins, 30, 0.02);
    covered += std::fabs(c.projected_tok_s - full) <= c.half_width_tok_s;
  }
  EXPECT_GE(covered, trials * 85 / 100) << covered << " of " << trials;
}

}  // namespace
}  // namespace sm
