#include "metrics/queue_growth.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <queue>
#include <vector>

#include "metrics/rate_metrics.h"
#include "metrics/stats.h"

namespace sm {

namespace {

double ns_to_ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

double mean_of(const std::vector<double>& v, size_t from, size_t count) {
  double sum = 0;
  for (size_t i = from; i < from + count; ++i) sum += v[i];
  return sum / static_cast<double>(count);
}

}  // namespace

QueueGrowth measure_queue_growth(std::span<const TimedRequest> requests) {
  QueueGrowth g;
  g.arrivals = static_cast<int64_t>(requests.size());
  const size_t n = requests.size(), third = n / 3;
  if (third == 0) return g;
  int64_t last_end_ns = INT64_MIN;
  for (const auto& t : requests) last_end_ns = std::max(last_end_ns, t.record.end_ns);

  // The wait for a first token, by arrival.
  auto ttft_median = [&](size_t from) {
    std::vector<double> v;
    for (size_t i = from; i < from + third; ++i) {
      const TimedRequest& t = requests[i];
      const int64_t first = t.record.first_token_ns >= 0 ? t.record.first_token_ns : std::max(last_end_ns, t.intended_ns);
      v.push_back(ns_to_ms(first - t.intended_ns));
    }
    return median(std::move(v));
  };
  g.first_third_ttft_ms = ttft_median(0);
  g.last_third_ttft_ms = ttft_median(n - third);

  // Requests in flight when each request arrives: those before it in the schedule whose end is
  // later than its intended start (the earliest ends leave a min-heap as time passes).
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> ends;
  std::vector<double> in_flight;
  in_flight.reserve(n);
  for (const auto& t : requests) {
    while (!ends.empty() && ends.top() <= t.intended_ns) ends.pop();
    in_flight.push_back(static_cast<double>(ends.size()));
    ends.push(t.record.end_ns >= 0 ? t.record.end_ns : INT64_MAX);
  }
  g.middle_third_in_flight = mean_of(in_flight, third, third);
  g.last_third_in_flight = mean_of(in_flight, n - third, third);

  std::vector<double> e2e;
  for (size_t i = 0; i < third; ++i)
    if (auto l = request_latency(requests[i]); l.e2e_ms) e2e.push_back(*l.e2e_ms);
  if (!e2e.empty()) g.first_third_e2e_ms = median(std::move(e2e));
  return g;
}

std::string queueing_saturation(const QueueGrowth& g, int64_t window_ns, const QueueingRule& rule) {
  if (g.arrivals < rule.min_requests || !g.first_third_ttft_ms || !g.last_third_ttft_ms || !g.middle_third_in_flight ||
      !g.last_third_in_flight)
    return {};
  const double window_ms = ns_to_ms(window_ns);
  const double first = *g.first_third_ttft_ms, last = *g.last_third_ttft_ms;
  if (last > rule.ttft_growth_factor * first && last - first > rule.ttft_growth_min_window_fraction * window_ms)
    return fmt::format("queueing grew: median TTFT {:.0f} ms in the last third of arrivals, {:.0f} ms in the first",
                       last, first);
  const double middle = *g.middle_third_in_flight, late = *g.last_third_in_flight;
  const double needed = std::max({rule.in_flight_growth_fraction * middle, rule.in_flight_min_growth,
                                  rule.in_flight_noise_sigmas * std::sqrt(middle)});
  const bool levelled = g.first_third_e2e_ms && *g.first_third_e2e_ms < rule.in_flight_max_e2e_window_fraction * window_ms;
  if (levelled && late - middle >= needed)
    return fmt::format("requests piled up: {:.1f} in flight on average at the last third's arrivals, {:.1f} at the "
                       "middle third's",
                       late, middle);
  return {};
}

}  // namespace sm
