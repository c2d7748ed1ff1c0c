#include "metrics/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sm {

double percentile(std::vector<double>& values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

std::optional<Percentiles> percentiles_of(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  Percentiles p;
  p.p50 = percentile(values, 0.50);
  p.p90 = percentile(values, 0.90);
  p.p99 = percentile(values, 0.99);
  return p;
}

double median(std::vector<double> values) { return percentile(values, 0.5); }

double time_weighted_count(std::span<const Interval> intervals, int64_t window_begin_ns, int64_t window_end_ns) {
  if (window_end_ns <= window_begin_ns) return 0;
  // The integral of the count is the sum of each clipped interval's length.
  long double covered_ns = 0;
  for (const auto& iv : intervals) {
    const int64_t b = std::max(iv.begin_ns, window_begin_ns);
    const int64_t e = std::min(iv.end_ns, window_end_ns);
    if (e > b) covered_ns += static_cast<long double>(e - b);
  }
  return static_cast<double>(covered_ns / static_cast<long double>(window_end_ns - window_begin_ns));
}

}  // namespace sm
