#pragma once
// What "meets the SLO" means, once for the request-rate sweep and the SLO search
// (docs/METRICS.md, "SLOs"): a request's latencies, whether one request is within the targets,
// whether a point's share of such requests reaches the SLO percentile, goodput, and a closed-loop
// measurement (a decode cell or a probe of `run --slo`) judged against the targets.
#include <cstdint>
#include <optional>
#include <span>

#include "metrics/cell_metrics.h"
#include "metrics/request_record.h"
#include "result/result.h"

namespace sm {

/// The latencies of one request, in ms; unset where the request did not get that far.
struct RequestLatency {
  std::optional<double> ttft_ms;  ///< start → first token
  std::optional<double> tpot_ms;  ///< (last token − first token) ÷ (tokens − 1); needs ≥ 2 tokens
  std::optional<double> e2e_ms;   ///< start → end (completed requests only)
  double send_lag_ms = 0;         ///< start → handed to the HTTP client
  bool completed = false;         ///< ended without error (finished, or ended early by the server)
};

/// The latencies of `r` timed from `start_ns`: a sweep's intended start, a closed loop's send.
RequestLatency request_latency(const RequestRecord& r, int64_t start_ns);

/// Completed, and within every target that is set (a one-token answer has no TPOT and passes it).
bool meets_slo(const RequestLatency& latency, const SloTargets& slo);

/// A point meets the SLO when the share of its requests within the targets (0..1) reaches the
/// SLO percentile (0..100]: at least `percentile` % of them.
bool meets_slo_share(double met_fraction, double percentile);

/// The sweep's goodput: achieved_rps × the share of completed requests within the SLO (0 when
/// none completed).
double goodput_rps(double achieved_rps, int64_t met, int64_t completed);

/// One closed-loop measurement (its requests, its window) against `slo`. Judged: every request,
/// except one cut by the measurement before its first token while it could still have met the TTFT
/// target. A request cut at the window's end is no failure: its TTFT and TPOT so far count. The
/// rates count requests completed (finished or ended early) inside the window; goodput_tok_s the
/// window's output tokens of requests within the SLO.
SloJudgement judge_closed_loop(std::span<const RequestRecord> records, DecodeWindow window, const SloTargets& slo);

}  // namespace sm
