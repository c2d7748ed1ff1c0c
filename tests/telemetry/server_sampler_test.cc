// The window sampler: means over the window from injected reads, and its thread's stop.
#include "telemetry/server_sampler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace sm {
namespace {

TEST(ServerSampler, MeanCountsOnlySamplesTakenWhollyInsideTheWindow) {
  std::vector<LoadSample> samples = {
      {500, 700, {9, 0}},    // ramp: before the window
      {900, 1100, {1, 0}},   // sent before the window opened: may be a reading of the ramp
      {1000, 1200, {4, 2}},  // sent at the window's first instant: counts
      {2000, 2100, {2, std::nullopt}},
      {3000, 3100, {3, 1}},
      {3900, 4000, {5, 0}},  // answered at the window's last instant: counts
      {3950, 4050, {1, 0}},  // answered after it: may be a reading of the cancelled streams
      {4001, 4100, {0, 0}},  // after it: cancelled streams draining
  };
  WindowLoad w = mean_in_window(samples, 1000, 4000);
  EXPECT_EQ(w.samples, 4);
  EXPECT_DOUBLE_EQ(*w.running_mean, (4 + 2 + 3 + 5) / 4.0);
  EXPECT_DOUBLE_EQ(*w.waiting_mean, (2 + 1 + 0) / 3.0);  // the sample without a queue length is left out
}

TEST(ServerSampler, NoSampleInTheWindowGivesNoMean) {
  std::vector<LoadSample> samples = {{10, 20, {3, 0}}};
  WindowLoad w = mean_in_window(samples, 100, 200);
  EXPECT_EQ(w.samples, 0);
  EXPECT_FALSE(w.running_mean.has_value());
  EXPECT_FALSE(w.waiting_mean.has_value());
  EXPECT_FALSE(mean_in_window({}, 0, 1).running_mean.has_value());
}

TEST(ServerSampler, IntervalIsASecondOrAFifthOfAShortWindow) {
  EXPECT_EQ(sampling_interval_ns(30), kNsPerS);
  EXPECT_EQ(sampling_interval_ns(2), 400 * kNsPerMs);
  EXPECT_EQ(sampling_interval_ns(0.1), 100 * kNsPerMs);
}

// The thread with an injected read: read n takes the hand-driven clock from n-1 to n seconds.
// The first six fall inside the window [0 s, 6 s]; later reads move the clock far past it, so
// whatever the thread reads before it stops is outside, and the mean is exact.
TEST(ServerSampler, ThreadSamplesUntilStoppedAndStampsEachRead) {
  ManualClock clock(0);
  std::atomic<int> reads{0};
  std::promise<void> six;
  auto read = [&]() -> Result<ServerLoad> {
    const int n = ++reads;
    if (n <= 6) {
      clock.advance_ns(kNsPerS);
      if (n == 6) six.set_value();
      if (n == 3) return fail(ErrorCode::Timeout, "slow /metrics");  // a missed sample
      return ServerLoad{n, 0};
    }
    clock.set_ns(1000 * kNsPerS);
    return ServerLoad{100, 100};
  };
  ServerSampler sampler(read, clock);
  sampler.start(0);  // back to back: the test never waits on time
  six.get_future().wait();
  std::vector<LoadSample> samples = sampler.stop();
  ASSERT_GE(samples.size(), 5u);
  EXPECT_EQ(samples[0].sent_ns, 0);
  EXPECT_EQ(samples[0].received_ns, kNsPerS);
  WindowLoad w = mean_in_window(samples, 0, 6 * kNsPerS);
  EXPECT_EQ(w.samples, 5);
  EXPECT_DOUBLE_EQ(*w.running_mean, (1 + 2 + 4 + 5 + 6) / 5.0);
  EXPECT_DOUBLE_EQ(*w.waiting_mean, 0.0);
}

// stop() wakes the thread from a long wait at once (a one-hour interval would otherwise hang).
TEST(ServerSampler, StopWakesTheWaitingThread) {
  ManualClock clock(0);
  std::promise<void> first;
  std::atomic<int> reads{0};
  ServerSampler sampler(
      [&]() -> Result<ServerLoad> {
        if (++reads == 1) first.set_value();
        return ServerLoad{1, 0};
      },
      clock);
  sampler.start(3600 * kNsPerS);
  first.get_future().wait();
  EXPECT_EQ(sampler.stop().size(), 1u);
  EXPECT_EQ(reads.load(), 1);
  // And it can run again for the next window, without the previous window's samples.
  std::promise<void> again;
  ServerSampler second([&]() -> Result<ServerLoad> {
    again.set_value();
    return ServerLoad{2, 0};
  }, clock);
  second.start(3600 * kNsPerS);
  again.get_future().wait();
  auto s = second.stop();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].load.running, 2);
}

}  // namespace
}  // namespace sm
