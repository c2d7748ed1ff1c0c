#include "telemetry/periodic_thread.h"

#include <chrono>

namespace sm {

PeriodicThread::~PeriodicThread() { stop(); }

void PeriodicThread::start(int64_t interval_ns, std::function<void()> tick) {
  if (running()) return;
  tick_ = std::move(tick);
  stop_ = false;
  thread_ = std::thread([this, interval_ns] { loop(interval_ns); });
}

void PeriodicThread::stop() {
  if (!running()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void PeriodicThread::loop(int64_t interval_ns) {
  auto next = std::chrono::steady_clock::now();
  while (true) {
    tick_();
    next += std::chrono::nanoseconds(interval_ns);
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // a slow tick: the next one starts at once, none are made up
    std::unique_lock lock(mu_);
    if (cv_.wait_until(lock, next, [this] { return stop_; })) return;
  }
}

}  // namespace sm
