#include "metrics/rate_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <utility>

#include "metrics/output_check.h"
#include "metrics/stats.h"

namespace sm {

RequestLatency request_latency(const TimedRequest& t) { return request_latency(t.record, t.intended_ns); }

void compute_rate_point(std::span<const TimedRequest> requests, int64_t window_begin_ns, int64_t window_ns,
                        const SloTargets& slo, const SaturationRule& rule, SweepPoint& p) {
  p.window_s = static_cast<double>(window_ns) / 1e9;
  p.requests = static_cast<int64_t>(requests.size());
  p.offered_rps = window_ns > 0 ? static_cast<double>(p.requests) / p.window_s : 0;
  p.completed = 0;
  p.failed = 0;
  std::vector<double> ttft, tpot, e2e, lag, input_tokens, output_tokens;
  int64_t met = 0, completed_tokens = 0, last_end_ns = window_begin_ns, steady = 0;
  int64_t last_completion_ns = INT64_MIN;
  const int64_t half_ns = window_begin_ns + window_ns / 2, window_end_ns = window_begin_ns + window_ns;
  OutputTally output;
  for (const auto& t : requests) {
    const RequestRecord& r = t.record;
    output.add(r);
    const RequestLatency l = request_latency(t);
    lag.push_back(l.send_lag_ms);
    if (l.ttft_ms) ttft.push_back(*l.ttft_ms);
    if (l.tpot_ms) tpot.push_back(*l.tpot_ms);
    if (l.e2e_ms) e2e.push_back(*l.e2e_ms);
    if (r.end_ns >= 0) last_end_ns = std::max(last_end_ns, r.end_ns);
    if (l.completed) {
      ++p.completed;
      completed_tokens += r.tokens;
      last_completion_ns = std::max(last_completion_ns, r.end_ns);
      output_tokens.push_back(static_cast<double>(r.tokens));
      if (r.end_ns >= half_ns && r.end_ns < window_end_ns) ++steady;
    } else if (r.end != RequestEnd::Running) {
      ++p.failed;
    }
    if (r.usage_prompt_tokens >= 0) input_tokens.push_back(static_cast<double>(r.usage_prompt_tokens));
    if (meets_slo(l, slo)) ++met;
  }
  auto mean = [](const std::vector<double>& v) -> std::optional<double> {
    if (v.empty()) return std::nullopt;
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
  };
  p.output_check.reset();
  if (OutputCheckSummary checked = output.finish(); checked.requests > 0) p.output_check = std::move(checked);
  p.input_tokens_mean = mean(input_tokens);
  p.output_tokens_mean = mean(output_tokens);
  p.ttft_ms = percentiles_of(ttft);
  p.tpot_ms = percentiles_of(tpot);
  p.e2e_ms = percentiles_of(e2e);
  p.send_lag_ms = percentiles_of(lag);
  // Completions over the arrival window, or up to the last completion when answers ran past it:
  // the offered rate (a little under) when the server keeps up, its capacity when it does not,
  // and never above the offered rate. Counting between the first and the last completion instead
  // read 211/s at an offered 16/s when answers came in a bunch (issue 31 point 6).
  if (!requests.empty()) {
    const int64_t last_ns = p.completed > 0 ? last_completion_ns : last_end_ns;
    const int64_t span_ns = std::max(last_ns - window_begin_ns, window_ns);
    if (span_ns > 0) p.achieved_rps = static_cast<double>(p.completed) / (static_cast<double>(span_ns) / 1e9);
  }
  if (p.achieved_rps) {
    p.output_tok_s = p.completed > 0 ? *p.achieved_rps * static_cast<double>(completed_tokens) / static_cast<double>(p.completed) : 0;
    p.goodput_rps = goodput_rps(*p.achieved_rps, met, p.completed);
  }
  if (!requests.empty()) p.slo_met_fraction = static_cast<double>(met) / static_cast<double>(requests.size());
  if (window_ns > 0) p.steady_completion_rps = static_cast<double>(steady) / (static_cast<double>(window_ns) / 2e9);

  // Queueing: TTFT and the in-flight count by third of the arrivals (metrics/queue_growth.h).
  const QueueGrowth growth = measure_queue_growth(requests);
  p.queue_growth_ms.reset();
  p.in_flight_growth.reset();
  if (growth.first_third_ttft_ms && growth.last_third_ttft_ms)
    p.queue_growth_ms = *growth.last_third_ttft_ms - *growth.first_third_ttft_ms;
  if (growth.middle_third_in_flight && growth.last_third_in_flight)
    p.in_flight_growth = *growth.last_third_in_flight - *growth.middle_third_in_flight;

  p.saturated = false;
  p.saturation_reason.clear();
  if (p.requests == 0) return;
  const double failed_fraction = static_cast<double>(p.failed) / static_cast<double>(p.requests);
  // Keeping pace: the completions of the window's second half against the arrivals they answer,
  // those of the same span moved back by the median E2E (so Poisson bursts do not count). Only
  // when answers take less than half the window; the shortfall must also exceed twice the
  // counting noise (√ of the arrivals).
  const int64_t lag_ns = p.e2e_ms ? static_cast<int64_t>(p.e2e_ms->p50 * 1e6) : window_ns;
  int64_t answered = 0;
  for (const auto& t : requests)
    if (t.intended_ns >= half_ns - lag_ns && t.intended_ns < window_end_ns - lag_ns) ++answered;
  const double shortfall = static_cast<double>(answered - steady);
  if (lag_ns < window_ns / 2 && answered > 0 &&
      static_cast<double>(steady) < rule.min_completion_ratio * static_cast<double>(answered) &&
      shortfall >= std::max(static_cast<double>(rule.min_shortfall_requests), 2 * std::sqrt(static_cast<double>(answered)))) {
    p.saturated = true;
    p.saturation_reason = fmt::format("{} requests completed in the window's second half ({:.3g}/s) for {} that "
                                      "arrived in the span they answer ({:.0f}%)",
                                      steady, p.steady_completion_rps.value_or(0), answered,
                                      100.0 * static_cast<double>(steady) / static_cast<double>(answered));
  } else if (std::string queued = queueing_saturation(growth, window_ns, rule.queueing); !queued.empty()) {
    p.saturated = true;
    p.saturation_reason = std::move(queued);
  }
  if (!p.saturated && failed_fraction > rule.max_failed_fraction) {
    p.saturated = true;
    p.saturation_reason = fmt::format("{} of {} requests failed", p.failed, p.requests);
  }
}

std::optional<double> max_rate_within_slo(std::span<const SweepPoint> points, double fraction) {
  std::optional<double> best;
  for (const auto& p : points) {
    if (p.status != CellStatus::Valid || !p.slo_met_fraction || !meets_slo_share(*p.slo_met_fraction, 100 * fraction))
      continue;
    if (!best || p.rate_rps > *best) best = p.rate_rps;
  }
  return best;
}

}  // namespace sm
