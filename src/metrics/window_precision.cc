#include "metrics/window_precision.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "metrics/batch_means.h"

namespace sm {

PrecisionCheck check_window_precision(std::span<const double> tokens_per_bin, double full_s, double precision) {
  PrecisionCheck out;
  const size_t n = tokens_per_bin.size();
  if (n == 0) return out;
  double sum = 0;
  for (double v : tokens_per_bin) sum += v;
  out.observed_tok_s = sum / static_cast<double>(n);
  if (n < 4) return out;
  // Least squares on the bins' mid-times (0.5, 1.5, …).
  const double nd = static_cast<double>(n);
  const double x_mean = nd / 2.0;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = static_cast<double>(i) + 0.5 - x_mean;
    sxx += dx * dx;
    sxy += dx * (tokens_per_bin[i] - out.observed_tok_s);
  }
  const double slope = sxy / sxx;
  const double intercept = out.observed_tok_s - slope * x_mean;
  std::vector<double> residuals(n);
  double ss = 0;
  for (size_t i = 0; i < n; ++i) {
    residuals[i] = tokens_per_bin[i] - (intercept + slope * (static_cast<double>(i) + 0.5));
    ss += residuals[i] * residuals[i];
  }
  double var = ss / (nd - 2);
  double lag = 0;
  for (size_t i = 0; i + 1 < n; ++i) lag += residuals[i] * residuals[i + 1];
  const double rho = ss > 0 ? lag / ss : 0;
  if (rho > 0.2) var *= (1 + std::min(rho, 0.9)) / (1 - std::min(rho, 0.9));
  const double at = full_s / 2.0;
  const double se = std::sqrt(var * (1.0 / nd + (at - x_mean) * (at - x_mean) / sxx));
  out.drift_per_s = slope;
  out.projected_tok_s = intercept + slope * at;
  out.half_width_tok_s = student_t_975(static_cast<int64_t>(n) - 2) * se;
  const std::vector<double> seconds(n, 1.0);
  const auto interval = batch_means_interval(tokens_per_bin, seconds, true);
  if (!interval || out.observed_tok_s <= 0) return out;
  out.interval_tok_s = interval->half_width;
  const double allowed = precision * out.observed_tok_s;
  out.precise_enough = out.interval_tok_s <= allowed &&
                       std::fabs(out.projected_tok_s - out.observed_tok_s) + out.half_width_tok_s <= allowed;
  return out;
}

}  // namespace sm
