#include "core/interrupt.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>

namespace sm {
namespace {

// What a waker's argument stands for (ClosedLoop's client): alive between being installed and
// being cleared, then "destroyed".
struct WakeTarget {
  std::atomic<bool> alive{false};
};

std::atomic<int64_t> g_wakes{0};
std::atomic<int64_t> g_bad_wakes{0};  // a null argument, or one already cleared

void wake(void* arg) {
  auto* target = static_cast<WakeTarget*>(arg);
  if (target == nullptr || !target->alive.load()) {
    g_bad_wakes.fetch_add(1);
    return;
  }
  g_wakes.fetch_add(1);
}

// One thread installs and clears the waker over and over (as each ClosedLoop does when it is
// made and destroyed) while another interrupts (as Ctrl-C would): the waker must never be called
// with a null argument, nor with one that set_interrupt_waker(nullptr, nullptr) already retired.
TEST(Interrupt, WakerIsNeverCalledWithANullOrRetiredArgument) {
  constexpr int kInstalls = 1000000;
  const int64_t bad_before = g_bad_wakes.load();
  std::atomic<bool> started{false};
  std::atomic<bool> done{false};
  std::thread interrupter([&] {
    started.store(true);
    while (!done.load()) request_interrupt();
  });
  while (!started.load()) std::this_thread::yield();
  WakeTarget targets[2];
  for (int i = 0; i < kInstalls; ++i) {
    WakeTarget& t = targets[i % 2];
    t.alive.store(true);
    set_interrupt_waker(&wake, &t);
    set_interrupt_waker(nullptr, nullptr);
    t.alive.store(false);  // the argument is gone once the waker is cleared
  }
  done.store(true);
  interrupter.join();
  reset_interrupt();
  EXPECT_EQ(g_bad_wakes.load() - bad_before, 0) << "bad wakes of " << g_wakes.load() + g_bad_wakes.load();
  EXPECT_FALSE(interrupt_requested());
}

TEST(Interrupt, RequestCallsTheInstalledWakerWithItsArgument) {
  WakeTarget t;
  t.alive.store(true);
  const int64_t before = g_wakes.load();
  const int64_t bad_before = g_bad_wakes.load();
  set_interrupt_waker(&wake, &t);
  request_interrupt();
  EXPECT_TRUE(interrupt_requested());
  EXPECT_EQ(g_wakes.load(), before + 1);
  set_interrupt_waker(nullptr, nullptr);
  request_interrupt();  // no waker: only the flag
  EXPECT_EQ(g_wakes.load(), before + 1);
  reset_interrupt();
  EXPECT_FALSE(interrupt_requested());
  EXPECT_EQ(g_bad_wakes.load(), bad_before);
}

}  // namespace
}  // namespace sm
