// The idle barrier on a hand-driven clock: the fake sleep only moves the clock.
#include "bench/idle_barrier.h"

#include <gtest/gtest.h>

#include <deque>

namespace sm {
namespace {

// Answers reads from a script (the last entry repeats) and sleeps by advancing the clock.
struct FakeServer {
  ManualClock clock{1'000 * kNsPerS};
  std::deque<Result<ServerLoad>> answers;
  int64_t reads = 0;
  std::vector<int64_t> sleeps_ns;

  LoadReadFn read() {
    return [this]() -> Result<ServerLoad> {
      ++reads;
      Result<ServerLoad> r = answers.front();
      if (answers.size() > 1) answers.pop_front();
      return r;
    };
  }
  SleepFn sleep() {
    return [this](int64_t ns) {
      sleeps_ns.push_back(ns);
      clock.advance_ns(ns);
    };
  }
};

ServerLoad busy(int64_t running, std::optional<int64_t> waiting = 0) { return ServerLoad{running, waiting}; }

IdleBarrierOptions options(int64_t timeout_s) {
  IdleBarrierOptions o;
  o.timeout_ns = timeout_s * kNsPerS;
  o.poll_interval_ns = 200 * kNsPerMs;
  return o;
}

TEST(IdleBarrier, IdleAtOnceNeverSleeps) {
  FakeServer s;
  s.answers = {busy(0)};
  IdleWait w = wait_until_idle(s.read(), s.clock, s.sleep(), options(60));
  EXPECT_TRUE(w.idle);
  EXPECT_TRUE(w.reason.empty());
  EXPECT_EQ(w.polls, 1);
  EXPECT_TRUE(s.sleeps_ns.empty());
  EXPECT_EQ(w.waited_ns, 0);
}

TEST(IdleBarrier, IdleAfterTheCancelledStreamsDrain) {
  FakeServer s;
  s.answers = {busy(128, 0), busy(40, 0), busy(0, 3), busy(0, 0)};  // queued requests count as busy too
  IdleWait w = wait_until_idle(s.read(), s.clock, s.sleep(), options(60));
  EXPECT_TRUE(w.idle);
  EXPECT_EQ(w.polls, 4);
  // 10 ms first, doubling: a server that drains quickly is not waited on for a whole interval.
  EXPECT_EQ(s.sleeps_ns, (std::vector<int64_t>{10 * kNsPerMs, 20 * kNsPerMs, 40 * kNsPerMs}));
  EXPECT_EQ(w.waited_ns, 70 * kNsPerMs);
}

TEST(IdleBarrier, TheWaitsDoubleUpToThePollInterval) {
  FakeServer s;
  s.answers = {busy(1), busy(1), busy(1), busy(1), busy(1), busy(1), busy(1), busy(1), busy(0)};
  IdleWait w = wait_until_idle(s.read(), s.clock, s.sleep(), options(60));
  EXPECT_TRUE(w.idle);
  EXPECT_EQ(s.sleeps_ns, (std::vector<int64_t>{10 * kNsPerMs, 20 * kNsPerMs, 40 * kNsPerMs, 80 * kNsPerMs,
                                               160 * kNsPerMs, 200 * kNsPerMs, 200 * kNsPerMs, 200 * kNsPerMs}));
}

TEST(IdleBarrier, AFailedReadWaitsTheWholeInterval) {
  FakeServer s;
  s.answers = {busy(1), fail(ErrorCode::Timeout, "timed out"), busy(0)};
  IdleWait w = wait_until_idle(s.read(), s.clock, s.sleep(), options(60));
  EXPECT_TRUE(w.idle);
  EXPECT_EQ(s.sleeps_ns, (std::vector<int64_t>{10 * kNsPerMs, 200 * kNsPerMs}));
}

TEST(IdleBarrier, NeverIdleIsAnErrorAfterTheDrainTimeout) {
  FakeServer s;
  s.answers = {busy(3, 1)};
  IdleWait w = wait_until_idle(s.read(), s.clock, s.sleep(), options(60));
  EXPECT_FALSE(w.idle);
  EXPECT_EQ(w.reason, "server still busy: 3 running, 1 waiting after 60 s");
  EXPECT_EQ(w.waited_ns, 60 * kNsPerS);  // the last sleep is cut to the timeout, not past it
  // 10 + 20 + 40 + 80 + 160 ms, then 200 ms waits to 60 s (the last one cut short).
  EXPECT_EQ(w.polls, 1 + 5 + (60'000 - 310 + 199) / 200);
}

TEST(IdleBarrier, UnknownQueueLengthIsLeftOutOfTheReason) {
  FakeServer s;
  s.answers = {busy(2, std::nullopt)};  // llama.cpp /slots: no queue length
  IdleBarrierOptions o = options(1);
  o.timeout_ns = 500 * kNsPerMs;
  IdleWait w = wait_until_idle(s.read(), s.clock, s.sleep(), o);
  EXPECT_EQ(w.reason, "server still busy: 2 running after 0.5 s");
}

TEST(IdleBarrier, ReadsThatKeepFailingEndTheWaitEarly) {
  FakeServer s;
  s.answers = {fail(ErrorCode::Network, "connection refused")};
  IdleWait w = wait_until_idle(s.read(), s.clock, s.sleep(), options(60));
  EXPECT_FALSE(w.idle);
  EXPECT_EQ(w.polls, 5);
  EXPECT_NE(w.reason.find("connection refused"), std::string::npos);
  EXPECT_LT(w.waited_ns, 2 * kNsPerS);
}

TEST(IdleBarrier, AFailedReadBetweenGoodOnesIsRetried) {
  FakeServer s;
  s.answers = {busy(1), fail(ErrorCode::Timeout, "timed out"), busy(0)};
  IdleWait w = wait_until_idle(s.read(), s.clock, s.sleep(), options(60));
  EXPECT_TRUE(w.idle);
  EXPECT_EQ(w.polls, 3);
}

TEST(IdleBarrier, InterruptStopsTheWait) {
  FakeServer s;
  s.answers = {busy(1)};
  int checks = 0;
  IdleWait w = wait_until_idle(s.read(), s.clock, s.sleep(), options(60), [&] { return ++checks > 2; });
  EXPECT_TRUE(w.interrupted);
  EXPECT_FALSE(w.idle);
  EXPECT_TRUE(w.reason.empty());
  EXPECT_EQ(w.polls, 2);
}

}  // namespace
}  // namespace sm
