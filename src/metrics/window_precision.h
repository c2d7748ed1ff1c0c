#pragma once
// When an adaptive decode window (`run --precision P`) may close early: its figure must already be
// within P of what the whole `--duration` window would measure (docs/METRICS.md, "Adaptive
// windows").
#include <cstdint>
#include <span>

namespace sm {

/// What the bins of a window so far say about the window's full length.
struct PrecisionCheck {
  bool precise_enough = false;   ///< both rules below hold
  double observed_tok_s = 0;     ///< tokens ÷ time over the whole bins so far
  double interval_tok_s = 0;     ///< the observed rate's 95% half-width (batch means, as the cell reports it)
  double projected_tok_s = 0;    ///< the straight-line trend's mean over the full window
  double half_width_tok_s = 0;   ///< 95% half-width of the projection (AR(1)-inflated)
  double drift_per_s = 0;        ///< the trend's slope, tok/s per second
};

/// `tokens_per_bin`: output tokens in consecutive 1 s bins from the window's start (whole bins
/// only). Fits tokens/s = a + b·t by least squares, projects the mean over [0, full_s] as
/// a + b·full_s/2 with its standard error (t quantile with n − 2 degrees of freedom; the
/// variance × (1 + ρ)/(1 − ρ) when the residuals' lag-1 autocorrelation ρ is above 0.2), and says
/// whether (1) the observed rate's own interval (batch_means_interval, what the cell will report)
/// is within `precision` (a fraction) of it, and (2) the observed mean is within `precision` of
/// that projection, its uncertainty included. Never precise with fewer than 4 bins.
PrecisionCheck check_window_precision(std::span<const double> tokens_per_bin, double full_s, double precision);

}  // namespace sm
