#include "net/busy_poll.h"

#include <gtest/gtest.h>

#include "core/clock.h"

namespace sm {
namespace {

constexpr int64_t kWindowNs = 100 * kNsPerUs;

TEST(BusyPoll, SleepsUntilItHasSeenAGap) {
  BusyPoll poll(kWindowNs);
  EXPECT_LE(poll.poll_until_ns(), 0);
  poll.on_events(1'000'000);
  EXPECT_LE(poll.poll_until_ns(), 1'000'000);  // one event: no gap known yet
  EXPECT_EQ(poll.mean_gap_ns(), -1);
}

TEST(BusyPoll, PollsAfterEachReadWhileReadsAreDense) {
  BusyPoll poll(kWindowNs);
  int64_t t_ns = 0;
  for (int i = 0; i < 20; ++i) poll.on_events(t_ns += 40 * kNsPerUs);  // 25,000 reads/s
  EXPECT_EQ(poll.mean_gap_ns(), 40 * kNsPerUs);
  EXPECT_EQ(poll.poll_until_ns(), t_ns + kWindowNs);
}

TEST(BusyPoll, SleepsAtOnceWhenReadsAreSparse) {
  BusyPoll poll(kWindowNs);
  int64_t t_ns = 0;
  for (int i = 0; i < 20; ++i) poll.on_events(t_ns += 40 * kNsPerMs);  // one stream at 25 tok/s
  EXPECT_LE(poll.poll_until_ns(), t_ns);
}

TEST(BusyPoll, StopsPollingWhenReadsThinOut) {
  BusyPoll poll(kWindowNs);
  int64_t t_ns = 0;
  for (int i = 0; i < 20; ++i) poll.on_events(t_ns += 20 * kNsPerUs);
  ASSERT_GT(poll.poll_until_ns(), t_ns);
  // Streams end: gaps of 5 ms pull the mean above the window within a few reads.
  int reads = 0;
  while (poll.poll_until_ns() > t_ns && reads < 100) {
    poll.on_events(t_ns += 5 * kNsPerMs);
    ++reads;
  }
  EXPECT_LE(poll.poll_until_ns(), t_ns);
  EXPECT_LE(reads, 2);
}

TEST(BusyPoll, ZeroWindowNeverPolls) {
  BusyPoll poll(0);
  int64_t t_ns = 0;
  for (int i = 0; i < 20; ++i) poll.on_events(t_ns += 1 * kNsPerUs);
  EXPECT_LE(poll.poll_until_ns(), t_ns);
}

}  // namespace
}  // namespace sm
