#include "site/rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace sm::site {

namespace {
constexpr size_t kMaxBuckets = 100'000;  // beyond this, full (idle) buckets are forgotten
}

int64_t UnixClock::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

const UnixClock& UnixClock::instance() {
  static const UnixClock clock;
  return clock;
}

RateLimiter::RateLimiter(const Clock& clock, double per_minute, double burst, store::ResultStore* shared)
    : clock_(clock), shared_(shared), per_s_(per_minute > 0 ? per_minute / 60.0 : 0), burst_(burst >= 1 ? burst : std::max(1.0, per_minute)) {}

bool RateLimiter::allow(std::string_view key, int64_t* retry_after_s) {
  if (per_s_ <= 0) return true;
  const int64_t now = clock_.now_ns();
  if (shared_) {
    auto decision = shared_->take_rate_token(key, per_s_, burst_, now / kNsPerMs);
    if (!decision) return true;
    if (!decision->allowed && retry_after_s) *retry_after_s = decision->retry_after_s;
    return decision->allowed;
  }
  std::lock_guard lock(mutex_);
  if (buckets_.size() >= kMaxBuckets) {
    std::erase_if(buckets_, [&](const auto& kv) {
      return kv.second.tokens + static_cast<double>(now - kv.second.updated_ns) / kNsPerS * per_s_ >= burst_;
    });
  }
  auto [it, inserted] = buckets_.try_emplace(std::string(key), Bucket{burst_, now});
  Bucket& b = it->second;
  if (!inserted) {
    // A wall clock (UnixClock) may step back: that refills nothing.
    b.tokens = std::min(burst_, b.tokens + static_cast<double>(std::max<int64_t>(0, now - b.updated_ns)) / kNsPerS * per_s_);
    b.updated_ns = std::max(b.updated_ns, now);
  }
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return true;
  }
  if (retry_after_s) *retry_after_s = std::max<int64_t>(1, static_cast<int64_t>(std::ceil((1 - b.tokens) / per_s_)));
  return false;
}

}  // namespace sm::site
