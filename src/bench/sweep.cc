#include "bench/sweep.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <fmt/format.h>

#include "metrics/rate_metrics.h"

namespace sm {

Result<std::vector<double>> parse_rates(std::string_view text) {
  std::vector<double> rates;
  if (text == "auto") return rates;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item(text.substr(pos, comma - pos));
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(v > 0) || v > 1e6)
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("'{}' is not a rate: give 'auto' or requests per second, e.g. 1,2,4,8", item));
    rates.push_back(v);
    pos = comma + 1;
  }
  return rates;
}

std::vector<double> rates_below(double saturation_rps, int points) {
  std::vector<double> rates;
  if (!(saturation_rps > 0) || points < 1) return rates;
  for (int k = 1; k < points; ++k) rates.push_back(saturation_rps * k / points);
  rates.push_back(0.95 * saturation_rps);
  return rates;
}

std::optional<double> saturation_estimate(const std::vector<SweepPoint>& points) {
  double highest_unsaturated = 0;
  for (const auto& p : points) {
    if (p.status != CellStatus::Valid) continue;
    if (!p.saturated) {
      highest_unsaturated = std::max(highest_unsaturated, p.rate_rps);
      continue;
    }
    // What it sustained, and never more than was asked of it (a Poisson burst can complete more).
    const double sustained = std::max(p.steady_completion_rps.value_or(0), p.achieved_rps.value_or(0));
    return std::max(std::min(sustained, p.rate_rps), highest_unsaturated);
  }
  return std::nullopt;
}

std::vector<std::string> run_sweep(const RatePlan& plan, const MeasureRate& measure, const SweepProgress& progress,
                                   SweepInfo& sweep) {
  std::vector<std::string> notes;
  std::optional<size_t> lowest_saturated;  // the point of the lowest rate measured saturated: none above it is run
  auto take = [&](double rate, bool search) {
    sweep.points.push_back(measure(rate, search));
    sweep.max_rate_within_slo_rps = max_rate_within_slo(sweep.points, sweep.slo_fraction);
    if (progress) progress(sweep);
    const SweepPoint& p = sweep.points.back();
    if (p.status == CellStatus::Valid && p.saturated &&
        (!lowest_saturated || p.rate_rps < sweep.points[*lowest_saturated].rate_rps))
      lowest_saturated = sweep.points.size() - 1;
    return p.status != CellStatus::Interrupted;
  };
  // Rates of a list: those above a saturated rate are skipped (recorded, and said once at the end).
  auto take_list = [&](const std::vector<double>& rates) {
    for (double r : rates) {
      if (lowest_saturated && r > sweep.points[*lowest_saturated].rate_rps) {
        sweep.skipped_rates_rps.push_back(r);
        continue;
      }
      if (!take(r, false)) break;
    }
    if (sweep.skipped_rates_rps.empty()) return;
    const SweepPoint& saturated = sweep.points[*lowest_saturated];
    std::string skipped;
    for (double r : sweep.skipped_rates_rps) skipped += fmt::format("{}{:.3g}/s", skipped.empty() ? "" : ", ", r);
    notes.push_back(fmt::format("the server saturated at {:.3g} requests/s ({}), so the higher rates were not "
                                "measured: {}",
                                saturated.rate_rps, saturated.saturation_reason, skipped));
  };
  sweep.skipped_rates_rps.clear();
  if (!plan.rates.empty()) {
    take_list(plan.rates);
    return notes;
  }
  // The search: double until a rate saturates (or errs), or the ceiling.
  std::vector<SweepPoint> probes;
  double rate = plan.auto_start_rps;
  double below = 0;  // the sweep's rates are fractions of this
  while (true) {
    if (!take(rate, true)) return notes;
    probes.push_back(sweep.points.back());
    if (probes.back().status == CellStatus::Error) {
      notes.push_back(fmt::format("--rates auto: the rate {:.3g}/s failed ({}); the sweep stays below it", rate,
                                  probes.back().error));
      below = std::max(rate / 2, plan.auto_start_rps / 2);
      break;
    }
    sweep.saturation_rps = saturation_estimate(probes);
    if (sweep.saturation_rps) {
      below = *sweep.saturation_rps;
      break;
    }
    if (rate * 2 > plan.auto_max_rps) {
      notes.push_back(fmt::format("--rates auto: the server kept up with every rate up to {:.3g}/s; the sweep "
                                  "measures below that, not below a saturation rate",
                                  rate));
      below = rate;
      break;
    }
    rate *= 2;
  }
  take_list(rates_below(below, plan.auto_points));
  return notes;
}

}  // namespace sm
