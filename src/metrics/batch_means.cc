#include "metrics/batch_means.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace sm {

namespace {

constexpr double kMaxLag1Autocorrelation = 0.2;
constexpr int64_t kMinBatchesToWiden = 10;

struct Batches {
  std::vector<double> rates;
  double lag1 = 0;
};

Batches batch_rates(std::span<const double> num, std::span<const double> den, size_t per_batch) {
  Batches b;
  for (size_t start = 0; start + per_batch <= num.size(); start += per_batch) {
    double n = 0, d = 0;
    for (size_t i = start; i < start + per_batch; ++i) {
      n += num[i];
      d += den[i];
    }
    if (d > 0) b.rates.push_back(n / d);
  }
  const size_t k = b.rates.size();
  if (k < 3) return b;
  double mean = 0;
  for (double r : b.rates) mean += r;
  mean /= static_cast<double>(k);
  double var = 0, cov = 0;
  for (size_t i = 0; i < k; ++i) {
    var += (b.rates[i] - mean) * (b.rates[i] - mean);
    if (i + 1 < k) cov += (b.rates[i] - mean) * (b.rates[i + 1] - mean);
  }
  b.lag1 = var > 0 ? cov / var : 0;
  return b;
}

}  // namespace

double student_t_975(int64_t df) {
  static constexpr std::array<double, 30> kTable = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
      2.120,  2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return kTable[0];
  if (df <= 30) return kTable[static_cast<size_t>(df - 1)];
  // Beyond the table: the Cornish-Fisher expansion in 1/df (within 0.01% at df 31).
  const double z = 1.959964, z3 = z * z * z, z5 = z3 * z * z;
  const double d = static_cast<double>(df);
  return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d);
}

std::optional<RateInterval> batch_means_interval(std::span<const double> numerators,
                                                 std::span<const double> denominators, bool remove_trend) {
  if (numerators.size() != denominators.size()) return std::nullopt;
  if (remove_trend) {
    // Each bin's rate minus the straight line through the rates, plus their mean; the numerators
    // are rebuilt from those rates so the batches below see the detrended series.
    std::vector<double> x, rate;
    for (size_t i = 0; i < numerators.size(); ++i)
      if (denominators[i] > 0) {
        x.push_back(static_cast<double>(i));
        rate.push_back(numerators[i] / denominators[i]);
      }
    if (x.size() >= 3) {
      double x_mean = 0, r_mean = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        x_mean += x[i];
        r_mean += rate[i];
      }
      x_mean /= static_cast<double>(x.size());
      r_mean /= static_cast<double>(x.size());
      double sxx = 0, sxy = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        sxx += (x[i] - x_mean) * (x[i] - x_mean);
        sxy += (x[i] - x_mean) * (rate[i] - r_mean);
      }
      const double slope = sxx > 0 ? sxy / sxx : 0;
      std::vector<double> detrended(numerators.begin(), numerators.end());
      for (size_t i = 0; i < numerators.size(); ++i)
        if (denominators[i] > 0)
          detrended[i] = (numerators[i] / denominators[i] - slope * (static_cast<double>(i) - x_mean)) * denominators[i];
      auto out = batch_means_interval(detrended, denominators, false);
      if (out) {
        double n = 0, d = 0;
        for (size_t i = 0; i < numerators.size(); ++i) {
          n += numerators[i];
          d += denominators[i];
        }
        out->mean = n / d;  // the window's own figure, not the detrended one
      }
      return out;
    }
  }
  double total_n = 0, total_d = 0;
  for (size_t i = 0; i < numerators.size(); ++i) {
    total_n += numerators[i];
    total_d += denominators[i];
  }
  if (total_d <= 0) return std::nullopt;
  size_t per_batch = 1;
  Batches b = batch_rates(numerators, denominators, per_batch);
  if (b.rates.size() < 3) return std::nullopt;
  while (b.lag1 > kMaxLag1Autocorrelation) {
    Batches wider = batch_rates(numerators, denominators, per_batch * 2);
    if (static_cast<int64_t>(wider.rates.size()) < kMinBatchesToWiden) break;
    per_batch *= 2;
    b = std::move(wider);
  }
  const auto k = static_cast<int64_t>(b.rates.size());
  double mean = 0;
  for (double r : b.rates) mean += r;
  mean /= static_cast<double>(k);
  double var = 0;
  for (double r : b.rates) var += (r - mean) * (r - mean);
  var /= static_cast<double>(k - 1);
  // Whatever correlation is left between the batches (a short window cannot be widened enough):
  // inflate the variance as for an AR(1) series, (1 + ρ) / (1 − ρ), with the lag-1 estimate
  // corrected for its downward bias on k batches, ρ̂ + (1 + 3ρ̂⁺) / k, clipped to [0, 0.9].
  const double rho = std::clamp(b.lag1 + (1 + 3 * std::max(b.lag1, 0.0)) / static_cast<double>(k), 0.0, 0.9);
  var *= (1 + rho) / (1 - rho);
  RateInterval out;
  out.mean = total_n / total_d;
  out.half_width = student_t_975(k - 1) * std::sqrt(var / static_cast<double>(k));
  out.batches = k;
  out.bins_per_batch = static_cast<int64_t>(per_batch);
  out.lag1_autocorrelation = b.lag1;
  return out;
}

}  // namespace sm
