#pragma once
// A token bucket per key (an upload token's id, a client address): `per_minute` requests a
// minute on average, bursts of up to `burst`. Time comes from an injected Clock so tests do not
// sleep.
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/clock.h"

namespace sm::site {

class RateLimiter {
 public:
  /// `per_minute` ≤ 0 turns the limit off. `burst` < 1 means `per_minute` (one minute's worth).
  RateLimiter(const Clock& clock, double per_minute, double burst = 0);

  /// Takes one request from `key`'s bucket. When it is empty, returns false and sets
  /// `retry_after_s` to the whole seconds until the next request is allowed. Thread-safe.
  bool allow(std::string_view key, int64_t* retry_after_s = nullptr);

  /// True when the limit is on.
  bool enabled() const { return per_s_ > 0; }

 private:
  struct Bucket {
    double tokens = 0;      ///< requests available now (≤ burst_)
    int64_t updated_ns = 0; ///< when `tokens` was last brought up to date
  };

  const Clock& clock_;
  double per_s_;   ///< refill rate
  double burst_;   ///< bucket size
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace sm::site
