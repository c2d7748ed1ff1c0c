#pragma once
// From the records of one open-loop rate to its sweep point (docs/METRICS.md, "Request-rate
// sweeps"): offered and achieved rate, TTFT / TPOT / E2E percentiles timed from each request's
// intended start, goodput against the SLOs, and whether the server kept up.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "metrics/queue_growth.h"
#include "metrics/request_record.h"
#include "metrics/timed_request.h"
#include "result/result.h"

namespace sm {

/// Latency targets; unset = no limit on that figure.
struct SloTargets {
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
};

/// The latencies of one request, in ms; unset where the request did not get that far.
struct RequestLatency {
  std::optional<double> ttft_ms;  ///< intended start → first token
  std::optional<double> tpot_ms;  ///< (last token − first token) ÷ (tokens − 1); needs ≥ 2 tokens
  std::optional<double> e2e_ms;   ///< intended start → end (completed requests only)
  double send_lag_ms = 0;         ///< intended start → handed to the HTTP client
  bool completed = false;         ///< ended without error (finished, or ended early by the server)
};
RequestLatency request_latency(const TimedRequest& r);

/// Completed, and within every SLO that is set (a one-token answer has no TPOT and passes it).
bool meets_slo(const RequestLatency& latency, const SloTargets& slo);

/// The thresholds of the saturation rule (docs/METRICS.md).
struct SaturationRule {
  double min_completion_ratio = 0.9;  ///< second-half completions ÷ the arrivals they answer below this ...
  int64_t min_shortfall_requests = 3; ///< ... and short by at least this many requests: saturated
  QueueingRule queueing;              ///< TTFT or the in-flight count grew through the window: saturated
  double max_failed_fraction = 0.1;   ///< more failed requests than this: saturated
};

/// Fills every measured field of `point` (rate_rps, search and status are left alone) from the
/// requests of one rate whose arrivals were scheduled over [window_begin_ns, window_begin_ns +
/// window_ns). Records are in schedule order.
void compute_rate_point(std::span<const TimedRequest> requests, int64_t window_begin_ns, int64_t window_ns,
                        const SloTargets& slo, const SaturationRule& rule, SweepPoint& point);

/// The highest rate among valid points whose slo_met_fraction reaches `fraction`; none when no
/// point does.
std::optional<double> max_rate_within_slo(std::span<const SweepPoint> points, double fraction);

}  // namespace sm
