#pragma once
// When an adaptive decode window (`run --precision P`) may close early, and what it reports then:
// the mean rate the whole `--duration` window would have measured, projected from the bins so far
// (docs/METRICS.md, "Adaptive windows").
#include <cstdint>
#include <span>

#include "result/result.h"

namespace sm {

/// What the bins of a window so far say about the window's full length.
struct PrecisionCheck {
  bool precise_enough = false;   ///< the projection's and the observed rate's 95% half-widths are within the precision
  double observed_tok_s = 0;     ///< mean of the bins so far
  double projected_tok_s = 0;    ///< the trend's mean rate over the full window (0: no projection)
  double half_width_tok_s = 0;   ///< 95% half-width of the projection (AR(1)-inflated)
  double observed_half_width_tok_s = 0;  ///< 95% batch-means half-width of the observed rate (0: none)
  double drift_per_s = 0;        ///< the trend's slope at the bins' middle, tok/s per second
  bool held_still = false;       ///< the projections from half the bins on were within half the precision of this one
  /// The closing rule of `run --precision` (check_window_closing): precise, and the projection held still.
  bool closes() const { return precise_enough && held_still; }
};

/// `tokens_per_bin`: output tokens in consecutive 1 s bins from the window's start (whole bins
/// only). A closed loop's rate drifts as its streams' contexts grow. A stream's time per token
/// grows linearly with its context, τ = a + b·c, and its context grows one token per τ, so
/// dc/dt = 1/τ and τ² = a'² + 2b·t: the **square** of the seconds per token is linear in time for
/// streams that started together (a closed loop's window opens as its streams' first tokens
/// arrive), and nearly so for streams that restart apart. The model is z = 1/rate² = α + β·t,
/// fitted by least squares on the bins' mid-times. The full window's mean rate is then
/// ∫₀ᴰ dt/√(α+βt) ÷ D = 2 / (√(α+βD) + √α), and its standard error follows from
/// the fit's (by the delta method), with the residual variance × (1 + ρ)/(1 − ρ) for the residuals'
/// lag-1 autocorrelation ρ (bias-corrected: + (2 + 4ρ̂⁺)/n, clipped to [0, 0.9]), and a t
/// quantile with n − 2 degrees of freedom.
/// The bins are fractional (tokens_per_second spreads a chunk's tokens over the gap before it), so
/// a slope smaller than one engine step per second still shows; counted by arrival, a batched
/// engine's bins move in whole steps and identical bins once gave a zero-width interval.
/// Precise enough when that 95% half-width is within `precision` (a fraction) of the projection
/// and the observed rate's own batch-means interval (batch_means_interval) is within it too.
/// Never with fewer than 4 bins, an empty bin, or a trend that reaches zero within the window.
PrecisionCheck check_window_precision(std::span<const double> tokens_per_bin, double full_s, double precision);

/// The closing rule of `run --precision`: check_window_precision on all `n` bins, and whether the
/// projection has **held still**: the projections from the first m bins, for every m from
/// max(⌈n/2⌉, 4) to n − 1, are all within `precision`/2 of this one (none of them missing) — what
/// moved by up to P/2 over the last half of the window may move as much again by its end. An
/// interval says how well the fit's model pins the full window down; a server whose speed wanders
/// (a CPU server sharing its cores: long-memory noise the model does not have) keeps a tight
/// interval while its projection moves from second to second. `held_still` is set on the returned
/// check; `closes()` is the decision.
PrecisionCheck check_window_closing(std::span<const double> tokens_per_bin, double full_s, double precision);

/// An adaptive window that closed early reports what the full window would have measured:
/// total_tok_s becomes `check.projected_tok_s` with `check.half_width_tok_s` as its interval,
/// window_tok_s keeps the window's own tokens ÷ length, and per_request_tok_s (and its interval)
/// scale by the same ratio. Nothing changes without a projection.
void report_projection(const PrecisionCheck& check, DecodeCell& cell);

}  // namespace sm
