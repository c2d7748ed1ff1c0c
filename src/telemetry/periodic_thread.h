#pragma once
// A thread that calls one function at once and then every interval until stopped: the shared
// mechanics of the samplers that watch the server (and, later, its GPUs) while a decode window
// runs. Never the measuring thread: a tick may block on HTTP as long as it likes.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace sm {

class PeriodicThread {
 public:
  PeriodicThread() = default;
  ~PeriodicThread();
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

  /// Starts calling `tick` on a new thread: once now, then every `interval_ns` after the
  /// previous call began (at once when a tick took longer). Not while already running.
  void start(int64_t interval_ns, std::function<void()> tick);
  /// Wakes the thread from its wait and joins it; a tick in progress finishes first. Idempotent.
  void stop();
  bool running() const { return thread_.joinable(); }

 private:
  void loop(int64_t interval_ns);

  std::function<void()> tick_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

}  // namespace sm
