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
#include "metrics/slo.h"
#include "metrics/timed_request.h"
#include "result/result.h"

namespace sm {

/// The latencies of one open-loop request, timed from its intended start (metrics/slo.h).
RequestLatency request_latency(const TimedRequest& r);

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

/// The highest rate among valid points whose slo_met_fraction meets the SLO share `fraction`
/// (meets_slo_share); none when no point does.
std::optional<double> max_rate_within_slo(std::span<const SweepPoint> points, double fraction);

}  // namespace sm
