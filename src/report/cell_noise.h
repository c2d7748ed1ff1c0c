#pragma once
// A cell's noise, worked out in one place for every printer and for `compare`: how far its figure
// could move if it were measured again (docs/reports.md, "Noise").
//
// Two sources, each a relative 95%-style half-width of the cell's figure:
//   within  — the window's own interval: total_tok_s_ci ÷ total_tok_s (batch means over the
//             window's seconds, docs/METRICS.md);
//   between — with `run --repeat N` (N ≥ 2): half the range of the passes' figures ÷ the cell's
//             figure (its median pass). Half the range, not a t-interval: with the 2–5 passes a
//             repeat has, the range is what the passes showed, with no distribution assumed, and
//             the figure shown is the median pass, not the passes' mean a t-interval describes.
// The cell's ± is the wider of the two. Printers show it where it is wider than kShowNoiseAbove.
#include <optional>
#include <string>
#include <vector>

#include "result/result.h"

namespace sm::report {

/// A cell's ± is shown beside its figure when its relative half-width is wider than this (2%).
inline constexpr double kShowNoiseAbove = 0.02;

/// The noise of one figure, relative to it (0.05 = ±5%).
struct CellNoise {
  std::optional<double> within;   ///< the window's 95% interval ÷ the figure; nullopt: no interval
  std::optional<double> between;  ///< half the range of the repeat passes ÷ the figure; nullopt: under 2 passes
  /// The wider of the two; nullopt when neither is known.
  std::optional<double> relative() const;
  /// True when relative() is wider than kShowNoiseAbove: printers show the ±.
  bool shown() const;
};

/// Half the range of `passes` (tok/s); nullopt under two finite values.
std::optional<double> half_range(const std::vector<double>& passes);

/// A decode cell's total tok/s noise: total_tok_s_ci and repeat_tok_s. Per-request tok/s has the
/// same relative noise (its interval is the total's relative precision, docs/METRICS.md).
CellNoise decode_noise(const DecodeCell& cell);

/// A prefill row's prompt tok/s noise: one request per pass, so between passes only.
CellNoise prefill_noise(const PrefillRow& row);

/// "392.0 ± 193.0" when the noise is shown, else format_tok_s(value): how every printer writes a
/// decode cell's tok/s.
std::string format_tok_s_noise(std::optional<double> value, const CellNoise& noise);

/// "392.0 ± 193.0" whenever the noise is known (the All-measurements table shows every ±).
std::string format_tok_s_noise_always(std::optional<double> value, const CellNoise& noise);

}  // namespace sm::report
