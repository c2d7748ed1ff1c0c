#pragma once
// When the event loop polls without sleeping. Waking a sleeping thread costs tens of µs (and on
// virtual machines sometimes far more), which lands in every stamp taken after the wake-up. While
// reads arrive closer together than the window, the loop keeps polling for up to `window_ns`
// after the last read instead of sleeping; when they arrive further apart it sleeps at once, so
// an idle or slow stream costs no CPU.
#include <cstdint>

namespace sm {

class BusyPoll {
 public:
  /// window_ns <= 0: never poll, always sleep.
  explicit BusyPoll(int64_t window_ns) : window_ns_(window_ns) {}

  /// A wait returned events at now_ns.
  void on_events(int64_t now_ns) {
    if (last_events_ns_ >= 0) {
      const int64_t gap_ns = now_ns - last_events_ns_;
      // Exponential mean of the gaps, weight 1/8 for the newest.
      mean_gap_ns_ = mean_gap_ns_ < 0 ? gap_ns : mean_gap_ns_ + (gap_ns - mean_gap_ns_) / 8;
    }
    last_events_ns_ = now_ns;
  }

  /// Until when the loop should poll without sleeping; a time <= now_ns means sleep now.
  int64_t poll_until_ns() const {
    if (window_ns_ <= 0 || mean_gap_ns_ < 0 || mean_gap_ns_ >= window_ns_) return 0;
    return last_events_ns_ + window_ns_;
  }

  int64_t mean_gap_ns() const { return mean_gap_ns_; }  ///< -1 until two waits returned events

 private:
  int64_t window_ns_;
  int64_t last_events_ns_ = -1;
  int64_t mean_gap_ns_ = -1;
};

}  // namespace sm
