#pragma once
// How precise a rate measured over a window is: a confidence interval from batch means, with the
// batches widened until they are nearly uncorrelated (docs/METRICS.md, "Confidence intervals").
#include <cstdint>
#include <optional>
#include <span>

namespace sm {

/// A rate and the half-width of its confidence interval, in the rate's unit.
struct RateInterval {
  double mean = 0;          ///< Σ numerator ÷ Σ denominator over the whole window
  double half_width = 0;    ///< t(k−1) × sd(batch rates) ÷ √k
  int64_t batches = 0;      ///< k, after widening
  int64_t bins_per_batch = 1;
  double lag1_autocorrelation = 0;  ///< of the batch rates that were used
};

/// Student's t quantile for a two-sided 95% interval with `df` degrees of freedom (df ≥ 1).
double student_t_975(int64_t df);

/// The interval of Σ numerators ÷ Σ denominators, given per-bin numerators (tokens) and
/// denominators (seconds, or stream-seconds) of equal-length consecutive bins. Bins are grouped
/// into batches of 1, 2, 4, … bins while the batch rates' lag-1 autocorrelation is above 0.2 and
/// at least 10 batches would remain; a partial last batch is left out of the spread (not of the
/// mean). The variance is inflated by (1 + ρ) ÷ (1 − ρ) for the correlation left between the
/// batches (ρ: their lag-1 autocorrelation, bias-corrected, clipped to [0, 0.9]). Empty when fewer than 3 batches with a positive denominator exist.
///
/// `remove_trend`: the bins' rates are first taken about their least-squares straight line (the
/// mean kept), so a steady drift — every stream's context growing through a decode window — is
/// treated as part of what the window measured, not as noise.
std::optional<RateInterval> batch_means_interval(std::span<const double> numerators,
                                                 std::span<const double> denominators, bool remove_trend = false);

}  // namespace sm
