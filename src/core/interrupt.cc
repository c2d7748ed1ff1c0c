#include "core/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace sm {

namespace {
std::atomic<bool> g_interrupted{false};
std::atomic<void (*)(void*)> g_waker_fn{nullptr};
std::atomic<void*> g_waker_arg{nullptr};

void on_signal(int) {
  if (g_interrupted.exchange(true)) {
    static const char msg[] = "\nspeedmatrix: second interrupt, exiting now\n";
    ssize_t r = ::write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(130);
  }
  if (auto fn = g_waker_fn.load()) fn(g_waker_arg.load());
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
  if (auto fn = g_waker_fn.load()) fn(g_waker_arg.load());
}

void reset_interrupt() { g_interrupted.store(false); }

void set_interrupt_waker(void (*fn)(void*), void* arg) {
  g_waker_arg.store(arg);
  g_waker_fn.store(fn);
}

}  // namespace sm
