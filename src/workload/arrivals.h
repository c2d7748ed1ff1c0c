#pragma once
// Open-loop workloads: when each request arrives (Poisson or evenly spaced at a rate) and how
// long its prompt and answer are (fixed, or normal with a mean and standard deviation, clipped
// to at least 1). Every draw comes from an injected, seeded Rng, so a schedule is reproducible.
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/rng.h"

namespace sm {

enum class ArrivalProcess : uint8_t {
  Poisson,   ///< exponential gaps with mean 1 / rate (vLLM bench serve's default)
  Constant,  ///< gaps of exactly 1 / rate
};
std::string_view to_string(ArrivalProcess process);
/// "poisson" or "constant".
Result<ArrivalProcess> parse_arrival_process(std::string_view text);

/// Arrival times (ns from the schedule's start, ascending) of every request that arrives in
/// [0, window_ns) at `rate_per_s`; at most `max_requests` (0 = no cap). Poisson: the first
/// arrival comes after one exponential gap too. Constant: at 0, 1/rate, 2/rate, ...
std::vector<int64_t> arrival_times_ns(ArrivalProcess process, double rate_per_s, int64_t window_ns,
                                      int64_t max_requests, Rng& rng);

/// A length in tokens: fixed (sd 0) or normal(mean, sd) rounded and clipped to at least 1.
struct LengthDistribution {
  double mean = 1;
  double sd = 0;
  int64_t draw(Rng& rng) const;
};
/// "1024" (fixed) or "1024:256" (mean:sd); sizes accept K (1024).
Result<LengthDistribution> parse_length_distribution(std::string_view text);

/// A standard normal draw (Box-Muller).
double standard_normal(Rng& rng);

}  // namespace sm
