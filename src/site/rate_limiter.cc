#include "site/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace sm::site {

namespace {
constexpr size_t kMaxBuckets = 100'000;  // beyond this, full (idle) buckets are forgotten
}

RateLimiter::RateLimiter(const Clock& clock, double per_minute, double burst)
    : clock_(clock), per_s_(per_minute > 0 ? per_minute / 60.0 : 0), burst_(burst >= 1 ? burst : std::max(1.0, per_minute)) {}

bool RateLimiter::allow(std::string_view key, int64_t* retry_after_s) {
  if (per_s_ <= 0) return true;
  const int64_t now = clock_.now_ns();
  std::lock_guard lock(mutex_);
  if (buckets_.size() >= kMaxBuckets) {
    std::erase_if(buckets_, [&](const auto& kv) {
      return kv.second.tokens + static_cast<double>(now - kv.second.updated_ns) / kNsPerS * per_s_ >= burst_;
    });
  }
  auto [it, inserted] = buckets_.try_emplace(std::string(key), Bucket{burst_, now});
  Bucket& b = it->second;
  if (!inserted) {
    b.tokens = std::min(burst_, b.tokens + static_cast<double>(now - b.updated_ns) / kNsPerS * per_s_);
    b.updated_ns = now;
  }
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return true;
  }
  if (retry_after_s) *retry_after_s = std::max<int64_t>(1, static_cast<int64_t>(std::ceil((1 - b.tokens) / per_s_)));
  return false;
}

}  // namespace sm::site
