#pragma once
// The sessions workload's figures from its requests (docs/METRICS.md, "Sessions"): per turn
// number, the context reached (the server's prompt count), the share of it the server took from
// its prefix cache, TTFT and each request's decode rate at that depth; over the whole, the cache
// hit rate, TTFT of cached against cold turns, and (trace replay) how late turns went out.
#include <cstdint>
#include <span>

#include "metrics/request_record.h"
#include "result/sessions.h"

namespace sm {

/// One request of the sessions workload.
struct SessionRequestView {
  int64_t turn = 1;             ///< 1-based
  const RequestRecord* record = nullptr;
  int64_t intended_ns = 0;      ///< when it was due (a trace's time on the loop's clock; else its previous turn's end)
};

/// A request counts as cached when the server took at least this share of its prompt from its cache.
inline constexpr double kCachedTurnShare = 0.5;

/// Fills every figure of a SessionsResult but status, error and warnings. `trace`: the turns had
/// times of their own (send_late_p90_ms is kept).
SessionsResult summarize_sessions(std::span<const SessionRequestView> requests, bool trace);

}  // namespace sm
