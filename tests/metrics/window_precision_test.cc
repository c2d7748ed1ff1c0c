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

// Tokens in 1 s bins [i, i+1) of a rate 1/√(tau0² + k·t) — a closed loop whose streams started
// together: time per token τ grows linearly with context, context one token per τ, so τ² grows
// linearly in time — and its mean over [0, full_s].
double lockstep_tokens(double tau0, double k, double a, double b) {
  return 2 * (std::sqrt(tau0 * tau0 + k * b) - std::sqrt(tau0 * tau0 + k * a)) / k;
}
std::vector<double> lockstep_bins(double tau0, double k, int n) {
  std::vector<double> bins;
  for (int i = 0; i < n; ++i) bins.push_back(lockstep_tokens(tau0, k, i, i + 1));
  return bins;
}
double lockstep_mean(double tau0, double k, double full_s) { return lockstep_tokens(tau0, k, 0, full_s) / full_s; }

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
  // Streams in lock-step from 1 ms a token, their contexts growing: τ² = 1 ms² + 0.044 ms² a
  // second (τ is 1.52 ms by 30 s). The first 8 s run 17% faster than the full 30 s window; the
  // projection is its mean, and a clean trend settles however large the drift.
  const auto bins = lockstep_bins(1e-3, 4.4e-8, 8);
  const double full = lockstep_mean(1e-3, 4.4e-8, 30);
  PrecisionCheck c = check_window_precision(bins, 30, 0.02);
  EXPECT_GT(c.observed_tok_s / full - 1, 0.15);
  EXPECT_NEAR(c.projected_tok_s / full, 1.0, 1e-4);
  EXPECT_LT(c.drift_per_s, 0);
  EXPECT_TRUE(c.precise_enough);
}

TEST(WindowPrecision, ARateWhoseTimePerTokenGrowsLinearlyIsProjectedWithinTwoPercent) {
  // Not the model's shape: seconds per token growing linearly in time, 1 ms + 20 µs a second
  // (τ is 1.6 ms by 30 s; streams that restart apart drift more gently than that). From 8 of
  // 30 s the projection stays within 2% while the observed mean is 7% high.
  std::vector<double> bins;
  for (int i = 0; i < 8; ++i) bins.push_back(std::log((1e-3 + 2e-5 * (i + 1)) / (1e-3 + 2e-5 * i)) / 2e-5);
  const double full = std::log((1e-3 + 2e-5 * 30) / 1e-3) / (2e-5 * 30);
  PrecisionCheck c = check_window_precision(bins, 30, 0.02);
  EXPECT_GT(c.observed_tok_s / full - 1, 0.06);
  EXPECT_LT(std::fabs(c.projected_tok_s / full - 1), 0.02);
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
  const auto bins = lockstep_bins(1e-3, 4.4e-8, 8);
  const PrecisionCheck c = check_window_closing(bins, 30, 0.02);
  EXPECT_TRUE(c.precise_enough);
  EXPECT_TRUE(c.held_still);
  EXPECT_TRUE(c.closes());
  EXPECT_NEAR(c.projected_tok_s / lockstep_mean(1e-3, 4.4e-8, 30), 1.0, 1e-4);
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
  // projection is compared with the 30 s window's own mean. The interval alone lets 17% of its
  // closings (63 of 379) land beyond 2%; holding still keeps that under 5% (6 of 196) (the
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
  // interval covers the true 30 s mean in 85-89% of them (1,732 of 2,000) (docs/METRICS.md: ~95% for
  // independent bins, less for strongly correlated ones); without the correction for correlation
  // it would be about 80%.
  std::mt19937_64 rng(14);
  std::normal_distribution<double> normal(0.0, 1.0);
  const double tau0 = 1e-3, k = 2.2e-8, full = lockstep_mean(tau0, k, 30);
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    auto bins = lockstep_bins(tau0, k, 10);
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
