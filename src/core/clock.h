#pragma once
// Monotonic time for every interval speedmatrix measures, plus one wall-clock anchor per run.
// Injected everywhere so tests can drive time by hand (Envoy's deterministic-test rule).
#include <atomic>
#include <cstdint>
#include <string_view>

namespace sm {

/// Source of monotonic nanoseconds. Thread-safe: now_ns() may be called from any thread.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Monotonic time in ns; only differences are meaningful.
  virtual int64_t now_ns() const = 0;
};

/// std::chrono::steady_clock (CLOCK_MONOTONIC) in ns.
class SteadyClock final : public Clock {
 public:
  int64_t now_ns() const override;
  /// The process-wide instance (stateless, so sharing it is safe).
  static const SteadyClock& instance();
};

/// A clock that only moves when told to; for tests.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ns = 0) : now_ns_(start_ns) {}
  int64_t now_ns() const override { return now_ns_.load(std::memory_order_relaxed); }
  void set_ns(int64_t t_ns) { now_ns_.store(t_ns, std::memory_order_relaxed); }
  void advance_ns(int64_t d_ns) { now_ns_.fetch_add(d_ns, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_ns_;
};

/// Wall-clock time in ms since the Unix epoch: only for labelling runs, never for intervals.
int64_t wall_clock_unix_ms();

/// ISO-8601 UTC text for a Unix time in ms, e.g. "2026-12-02T14:34:48Z".
std::string_view format_iso8601_utc(int64_t unix_ms, char (&buf)[32]);

constexpr int64_t kNsPerUs = 1'000;
constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kNsPerS = 1'000'000'000;
constexpr double kNsPerMsD = 1e6;  ///< the same as doubles, for converting measured spans
constexpr double kNsPerSD = 1e9;

}  // namespace sm
