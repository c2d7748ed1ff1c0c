#pragma once
// Which rates a sweep measures, and what it concludes (docs/METRICS.md, "Request-rate sweeps"):
// a fixed list (`--rates 1,2,4,8`), or `--rates auto`: double the rate from a start until a rate
// saturates the server, estimate the saturation rate from it, then measure evenly spaced rates
// below that. Either way no rate above one that saturated is measured. Measuring one rate is injected, so the search is tested without a server.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "result/result.h"

namespace sm {

struct RatePlan {
  std::vector<double> rates;     ///< fixed rates, in order; empty = auto
  double auto_start_rps = 1;     ///< auto: first rate of the search
  double auto_max_rps = 4096;    ///< auto: the search stops doubling here (never saturated: said so)
  int auto_points = 5;           ///< auto: rates measured below the saturation rate
};

/// "auto" or a comma list of positive rates ("0.5,1,2").
Result<std::vector<double>> parse_rates(std::string_view text);

/// The rates measured below a saturation rate `s`: s·k/n for k = 1 … n−1, then 0.95·s.
std::vector<double> rates_below(double saturation_rps, int points);

/// The saturation estimate from the search's points: what the first saturated point sustained
/// (the larger of its steady completion rate and its achieved rate, at most its own rate), but
/// never below the highest rate that did not saturate. None when no point saturated.
std::optional<double> saturation_estimate(const std::vector<SweepPoint>& search_points);

/// Measures one rate; `search` marks the auto search's probes. Returns the point (status
/// Interrupted when Ctrl-C stopped it).
using MeasureRate = std::function<SweepPoint(double rate_rps, bool search)>;
/// Called after every point with the sweep so far (to save result.json).
using SweepProgress = std::function<void(const SweepInfo& sweep)>;

/// Runs the plan into `sweep.points` (and sets saturation_rps and max_rate_within_slo_rps). Stops
/// after an interrupted point. Once a rate is measured saturated, no higher rate of a list (a fixed
/// `--rates`, or auto's rates below the estimate) is measured: they go to `sweep.skipped_rates_rps`
/// and a note says which and why. Returns notes for the run's warnings (e.g. never saturated).
std::vector<std::string> run_sweep(const RatePlan& plan, const MeasureRate& measure, const SweepProgress& progress,
                                   SweepInfo& sweep);

}  // namespace sm
