#pragma once
// Order statistics and time-weighted means.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "result/result.h"

namespace sm {

/// Percentile q in [0, 1] by linear interpolation between closest ranks (type 7: the median of
/// an even count is the mean of the two middle values). Sorts `values`. NaN when empty.
double percentile(std::vector<double>& values, double q);

/// p50, p90 and p99 of `values`; nullopt when empty.
std::optional<Percentiles> percentiles_of(std::vector<double> values);

/// The median (percentile 0.5) of a copy.
double median(std::vector<double> values);

/// An interval during which something was true (e.g. a request was in flight): [begin, end).
struct Interval {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

/// Time-weighted mean over [window_begin, window_end) of how many intervals cover each instant.
/// Intervals are clipped to the window. 0 when the window is empty.
double time_weighted_count(std::span<const Interval> intervals, int64_t window_begin_ns, int64_t window_end_ns);

}  // namespace sm
