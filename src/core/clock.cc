#include "core/clock.h"

#include <chrono>
#include <ctime>

namespace sm {

int64_t SteadyClock::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

const SteadyClock& SteadyClock::instance() {
  static const SteadyClock clock;
  return clock;
}

int64_t wall_clock_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string_view format_iso8601_utc(int64_t unix_ms, char (&buf)[32]) {
  std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm_utc{};
  gmtime_r(&secs, &tm_utc);
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm_utc);
  return std::string_view(buf, n);
}

}  // namespace sm
