#pragma once
// Saturation seen as queueing (docs/METRICS.md, "Request-rate sweeps", "Saturated"): a server
// that does not keep up with a rate makes each later arrival wait longer for its first token, and
// the number of requests in flight climbs through the arrival window instead of levelling off.
// Both are read from one rate's records (in schedule order), with no clock of their own.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "metrics/timed_request.h"

namespace sm {

/// The queueing signs of one rate: the arrivals split into thirds by schedule order.
struct QueueGrowth {
  int64_t arrivals = 0;  ///< requests of the rate (each third holds a third of them, rounded down)
  /// Median TTFT (from the intended start) of the first and the last third of arrivals; a request
  /// with no first token counts as waiting until the rate's last end (it was still queued).
  std::optional<double> first_third_ttft_ms, last_third_ttft_ms;
  /// Mean number of requests in flight (arrived, by their intended start, and not ended) seen by
  /// the arrivals of the middle and of the last third; a request that never ended counts to the end.
  std::optional<double> middle_third_in_flight, last_third_in_flight;
  /// Median E2E of the first third's completed requests: how long an answer took before any
  /// queue built up (the in-flight count of a server that keeps up levels off after about that).
  std::optional<double> first_third_e2e_ms;
};

/// The thresholds of the queueing rules (docs/METRICS.md).
struct QueueingRule {
  int64_t min_requests = 9;             ///< fewer arrivals: neither rule applies (3 per third)
  double ttft_growth_factor = 2.0;      ///< last third's median TTFT above this × the first's ...
  double ttft_growth_min_window_fraction = 0.05;  ///< ... and above it by this share of the window
  double in_flight_growth_fraction = 0.25;  ///< last third's mean in flight above the middle's by this share ...
  double in_flight_min_growth = 4;          ///< ... and by at least this many requests ...
  double in_flight_noise_sigmas = 3;        ///< ... and by this many √(middle's mean) (counting noise)
  double in_flight_max_e2e_window_fraction = 1.0 / 3;  ///< in-flight rule only when the first third's
                                                       ///< median E2E is under this share of the window
};

/// The thirds' figures of one rate's requests (in schedule order).
QueueGrowth measure_queue_growth(std::span<const TimedRequest> requests);

/// Why queueing says the rate saturated the server (the TTFT rule first), with the figures;
/// empty when neither rule holds. `window_ns` is the arrival window.
std::string queueing_saturation(const QueueGrowth& growth, int64_t window_ns, const QueueingRule& rule);

}  // namespace sm
