#include "workload/arrivals.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <fmt/format.h>

#include "core/units.h"

namespace sm {

std::string_view to_string(ArrivalProcess process) {
  return process == ArrivalProcess::Poisson ? "poisson" : "constant";
}

Result<ArrivalProcess> parse_arrival_process(std::string_view text) {
  if (text == "poisson") return ArrivalProcess::Poisson;
  if (text == "constant") return ArrivalProcess::Constant;
  return fail(ErrorCode::InvalidArgument, fmt::format("unknown arrival process '{}' (use poisson or constant)", text));
}

std::vector<int64_t> arrival_times_ns(ArrivalProcess process, double rate_per_s, int64_t window_ns,
                                      int64_t max_requests, Rng& rng) {
  std::vector<int64_t> times;
  if (!(rate_per_s > 0) || window_ns <= 0) return times;
  const double mean_gap_ns = 1e9 / rate_per_s;
  double t_ns = 0;
  for (int64_t i = 0;; ++i) {
    if (process == ArrivalProcess::Constant) {
      t_ns = static_cast<double>(i) * mean_gap_ns;
    } else {
      // Inverse CDF of the exponential; 1 − u is in (0, 1], so the log is finite.
      t_ns += -std::log(1.0 - rng.next_double()) * mean_gap_ns;
    }
    if (t_ns >= static_cast<double>(window_ns)) break;
    if (max_requests > 0 && static_cast<int64_t>(times.size()) >= max_requests) break;
    times.push_back(static_cast<int64_t>(t_ns));
  }
  return times;
}

double standard_normal(Rng& rng) {
  const double u1 = 1.0 - rng.next_double();  // (0, 1]
  const double u2 = rng.next_double();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

int64_t LengthDistribution::draw(Rng& rng) const {
  if (sd <= 0) return std::max<int64_t>(1, std::llround(mean));
  return std::max<int64_t>(1, std::llround(mean + sd * standard_normal(rng)));
}

Result<LengthDistribution> parse_length_distribution(std::string_view text) {
  const size_t colon = text.find(':');
  auto mean = parse_token_count(text.substr(0, colon));
  if (!mean) return std::unexpected(mean.error());
  if (*mean < 1) return fail(ErrorCode::InvalidArgument, fmt::format("'{}': the mean must be at least 1 token", text));
  LengthDistribution d{static_cast<double>(*mean), 0};
  if (colon != std::string_view::npos) {
    auto sd = parse_token_count(text.substr(colon + 1));
    if (!sd) return std::unexpected(sd.error());
    if (*sd < 0) return fail(ErrorCode::InvalidArgument, fmt::format("'{}': the standard deviation is negative", text));
    d.sd = static_cast<double>(*sd);
  }
  return d;
}

}  // namespace sm
