#include "core/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <mutex>
#include <thread>

namespace sm {

namespace {

// The waker is one immutable {fn, arg} pair published through one atomic pointer, so the handler
// sees the whole pair or none of it. `g_calls_in_flight` counts handlers between loading that
// pointer and returning from fn: set_interrupt_waker() unpublishes the old pair and waits for the
// count to drop to zero before it reuses the slot or returns, so nobody is still calling an old
// waker (whose argument may be about to be destroyed) once it returns.
struct Waker {
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
};

static_assert(std::atomic<bool>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);
static_assert(std::atomic<const Waker*>::is_always_lock_free);

std::atomic<bool> g_interrupted{false};
Waker g_waker_slot;                            // written only while unpublished and quiescent
std::atomic<const Waker*> g_waker{nullptr};    // &g_waker_slot or nullptr
std::atomic<int> g_calls_in_flight{0};
std::mutex g_setter_mutex;                     // one setter at a time (never taken by the handler)

// Async-signal-safe: lock-free atomics and the waker (which must be async-signal-safe itself).
void call_waker() {
  g_calls_in_flight.fetch_add(1);
  if (const Waker* w = g_waker.load()) w->fn(w->arg);
  g_calls_in_flight.fetch_sub(1);
}

void on_signal(int) {
  if (g_interrupted.exchange(true)) {
    static const char msg[] = "\nspeedmatrix: second interrupt, exiting now\n";
    ssize_t r = ::write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(130);
  }
  call_waker();
}

}  // namespace

void install_interrupt_handler() {
  struct sigaction sa{};
  sa.sa_handler = &on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupt_requested() { return g_interrupted.load(std::memory_order_relaxed); }

void request_interrupt() {
  g_interrupted.store(true);
  call_waker();
}

void reset_interrupt() { g_interrupted.store(false); }

void set_interrupt_waker(void (*fn)(void*), void* arg) {
  std::lock_guard lock(g_setter_mutex);
  g_waker.store(nullptr);
  // A handler that loaded the old pair incremented the count first (both sequentially
  // consistent), so once the count is zero nobody holds the old pair. A handler interrupting
  // this thread runs to completion before the loop goes on, so this cannot deadlock.
  while (g_calls_in_flight.load() != 0) std::this_thread::yield();
  if (fn == nullptr) return;
  g_waker_slot = Waker{fn, arg};
  g_waker.store(&g_waker_slot);
}

}  // namespace sm
