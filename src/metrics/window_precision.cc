#include "metrics/window_precision.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "metrics/batch_means.h"

namespace sm {

namespace {

constexpr size_t kMinBins = 4;  // a projection needs this many whole seconds

// Mean rate over [0, full_s] of 1/√(alpha + beta·t); 0 when the trend is not positive throughout.
// ∫₀ᴰ dt/√(α+βt) = 2(√(α+βD) − √α)/β, written as 2D/(√(α+βD) + √α) so β → 0 needs no case.
double mean_rate(double alpha, double beta, double full_s) {
  const double end = alpha + beta * full_s;
  if (alpha <= 0 || end <= 0) return 0;
  return 2.0 / (std::sqrt(end) + std::sqrt(alpha));
}

// Squared seconds per token z = 1/bin² against the bins' mid-times (0.5, 1.5, …), fitted by least
// squares and centred: z = γ + β(t − t̄). None with fewer than kMinBins bins or an empty one.
struct Trend {
  std::vector<double> z;  // squared seconds per token of each bin
  double t_mean = 0, sxx = 0, gamma = 0, beta = 0;
  // The trend's mean rate over [0, full_s]; 0 when it reaches zero within it.
  double projection(double full_s) const { return mean_rate(gamma - beta * t_mean, beta, full_s); }
};

std::optional<Trend> fit_trend(std::span<const double> tokens_per_bin) {
  const size_t n = tokens_per_bin.size();
  if (n < kMinBins) return std::nullopt;
  if (std::any_of(tokens_per_bin.begin(), tokens_per_bin.end(), [](double v) { return !(v > 0); }))
    return std::nullopt;
  Trend t;
  const double nd = static_cast<double>(n);
  t.t_mean = nd / 2.0;
  t.z.resize(n);
  for (size_t i = 0; i < n; ++i)
    t.gamma += (t.z[i] = 1.0 / (tokens_per_bin[i] * tokens_per_bin[i])) / nd;
  double sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dt = static_cast<double>(i) + 0.5 - t.t_mean;
    t.sxx += dt * dt;
    sxy += dt * (t.z[i] - t.gamma);
  }
  t.beta = sxy / t.sxx;
  return t;
}

}  // namespace

PrecisionCheck check_window_precision(std::span<const double> tokens_per_bin, double full_s, double precision) {
  PrecisionCheck out;
  const size_t n = tokens_per_bin.size();
  if (n == 0) return out;
  double sum = 0;
  for (double v : tokens_per_bin) sum += v;
  out.observed_tok_s = sum / static_cast<double>(n);
  const auto trend = full_s > 0 ? fit_trend(tokens_per_bin) : std::nullopt;
  if (!trend) return out;
  const double nd = static_cast<double>(n);
  const auto& [z, t_mean, sxx, gamma, beta] = *trend;
  double ss = 0, lag = 0;
  std::vector<double> residual(n);
  for (size_t i = 0; i < n; ++i) {
    residual[i] = z[i] - (gamma + beta * (static_cast<double>(i) + 0.5 - t_mean));
    ss += residual[i] * residual[i];
  }
  for (size_t i = 0; i + 1 < n; ++i) lag += residual[i] * residual[i + 1];
  // Lag-1 autocorrelation of the residuals, bias-corrected: on a few points, after a straight
  // line is taken out, it reads low by about (2 + 4ρ)/n (seeded simulations, docs/METRICS.md).
  double var = ss / (nd - 2);
  const double rho_hat = ss > 0 ? lag / ss : 0;
  const double rho = std::clamp(rho_hat + (2 + 4 * std::max(rho_hat, 0.0)) / nd, 0.0, 0.9);
  var *= (1 + rho) / (1 - rho);

  auto projection = [&](double g, double b) { return mean_rate(g - b * t_mean, b, full_s); };
  out.projected_tok_s = trend->projection(full_s);
  out.drift_per_s = -beta / (2 * gamma * std::sqrt(gamma));  // d(1/√z)/dt at the bins' middle
  if (out.projected_tok_s <= 0) return out;
  // Delta method: γ̂ and β̂ are uncorrelated (centred times), var γ̂ = σ²/n, var β̂ = σ²/Sxx.
  const double dg = 1e-6 * gamma;
  const double db = 1e-6 * (std::fabs(beta) + gamma / full_s);
  const double d_gamma = (projection(gamma + dg, beta) - projection(gamma - dg, beta)) / (2 * dg);
  const double d_beta = (projection(gamma, beta + db) - projection(gamma, beta - db)) / (2 * db);
  const double se = std::sqrt(d_gamma * d_gamma * var / nd + d_beta * d_beta * var / sxx);
  out.half_width_tok_s = student_t_975(static_cast<int64_t>(n) - 2) * se;
  // Strongly correlated bins make that interval optimistic on a short window; the observed rate's
  // batch-means interval (which widens its batches while they stay correlated) must also be
  // within the precision before the window closes.
  const std::vector<double> seconds(n, 1.0);
  const auto observed = batch_means_interval(tokens_per_bin, seconds, true);
  if (observed) out.observed_half_width_tok_s = observed->half_width;
  out.precise_enough = std::isfinite(out.half_width_tok_s) && out.half_width_tok_s <= precision * out.projected_tok_s &&
                       observed && observed->half_width <= precision * out.observed_tok_s;
  return out;
}

PrecisionCheck check_window_closing(std::span<const double> tokens_per_bin, double full_s, double precision) {
  PrecisionCheck out = check_window_precision(tokens_per_bin, full_s, precision);
  const size_t n = tokens_per_bin.size();
  if (!out.precise_enough) return out;  // nothing to hold still
  // What moved by up to P/2 over the last half of the window may move as much again by its end.
  out.held_still = true;
  for (size_t m = std::max<size_t>((n + 1) / 2, kMinBins); m < n && out.held_still; ++m) {
    const auto trend = fit_trend(tokens_per_bin.first(m));
    const double earlier = trend ? trend->projection(full_s) : 0;
    out.held_still = earlier > 0 && std::fabs(earlier - out.projected_tok_s) <= precision / 2 * out.projected_tok_s;
  }
  return out;
}

void report_projection(const PrecisionCheck& check, DecodeCell& cell) {
  if (!(check.projected_tok_s > 0) || !(check.observed_tok_s > 0) || !cell.total_tok_s) return;
  const double ratio = check.projected_tok_s / check.observed_tok_s;
  cell.window_tok_s = cell.total_tok_s;
  cell.total_tok_s = check.projected_tok_s;
  cell.total_tok_s_ci = check.half_width_tok_s;
  if (cell.per_request_tok_s) {
    cell.per_request_tok_s = *cell.per_request_tok_s * ratio;
    cell.per_request_tok_s_ci = *cell.per_request_tok_s * check.half_width_tok_s / check.projected_tok_s;
  }
}

}  // namespace sm

