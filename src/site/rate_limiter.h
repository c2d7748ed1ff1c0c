#pragma once
// A token bucket per key (an upload token's id, a client address): `per_minute` requests a
// minute on average, bursts of up to `burst`. Time comes from an injected Clock so tests do not
// sleep.
//
// The buckets live in this process, or, given a store, in the store (ResultStore::take_rate_token),
// where every `serve` process on the same database draws from the same bucket: behind a load
// balancer a token gets its limit once, not once per process. A shared limiter's clock must be
// the same on every machine: UnixClock (wall time, NTP-synchronised), not a monotonic clock.
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/clock.h"
#include "store/result_store.h"

namespace sm::site {

/// Nanoseconds since the Unix epoch (the system's wall clock): the same time on every synchronised
/// machine, for limits shared through the store. Not monotonic; the store's bucket ignores time
/// running backwards.
class UnixClock final : public Clock {
 public:
  int64_t now_ns() const override;
  static const UnixClock& instance();
};

class RateLimiter {
 public:
  /// `per_minute` ≤ 0 turns the limit off. `burst` < 1 means `per_minute` (one minute's worth).
  /// With `shared`, the buckets are kept in that store (which must outlive the limiter).
  RateLimiter(const Clock& clock, double per_minute, double burst = 0, store::ResultStore* shared = nullptr);

  /// Takes one request from `key`'s bucket. When it is empty, returns false and sets
  /// `retry_after_s` to the whole seconds until the next request is allowed. Thread-safe.
  /// A shared limiter whose store fails allows the request: a store that cannot answer fails
  /// the request's own store calls (503) instead of refusing it as too frequent.
  bool allow(std::string_view key, int64_t* retry_after_s = nullptr);

  /// True when the limit is on.
  bool enabled() const { return per_s_ > 0; }
  /// True when the buckets are kept in the store.
  bool shared() const { return shared_ != nullptr; }

 private:
  struct Bucket {
    double tokens = 0;      ///< requests available now (≤ burst_)
    int64_t updated_ns = 0; ///< when `tokens` was last brought up to date
  };

  const Clock& clock_;
  store::ResultStore* shared_;  ///< where the buckets are kept; null: buckets_ below
  double per_s_;   ///< refill rate
  double burst_;   ///< bucket size
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace sm::site
