#pragma once
// A fixed set of worker threads behind a bounded queue: the site server hands its heavy requests
// (a run page of 1,000 cells, a comparison, a calculation) to one, so that they wait for each
// other and never for the I/O threads that answer the cheap ones (docs/site.md, "Heavy pages").
// A task offered to a full queue is refused at once rather than queued without bound.
//
//   WorkerPool pool(2, 64);
//   if (!pool.try_submit([] { render(); })) answer_busy();
//   pool.stop();   // drops what still waits, lets the running tasks finish, joins
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sm::site {

class WorkerPool {
 public:
  struct Counts {
    size_t running = 0;     ///< tasks a worker is executing now
    size_t queued = 0;      ///< tasks accepted and waiting for a worker
    uint64_t refused = 0;   ///< tasks refused since the start (queue full, or stopped)
  };

  /// Starts `threads` (≥ 1) workers; at most `max_queued` tasks wait beyond the running ones.
  /// The workers block every signal (signals belong to the main thread).
  WorkerPool(int threads, size_t max_queued);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Queues `task`, or returns false without queueing when `max_queued` tasks already wait or
  /// the pool is stopped. Thread-safe.
  bool try_submit(std::function<void()> task);

  /// A consistent snapshot. Thread-safe.
  Counts counts() const;

  /// Blocks until `done(counts)` holds; it is checked now and after every change of the counts.
  /// For tests and monitoring (no polling). Thread-safe.
  void wait_until(const std::function<bool(const Counts&)>& done) const;

  /// Refuses new tasks, destroys the ones still queued (never run), waits for the running ones
  /// and joins the workers. Idempotent; not from a worker.
  void stop();

 private:
  void work();

  const size_t max_queued_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;  ///< a task was queued, started or finished; stop
  std::deque<std::function<void()>> queue_;
  size_t running_ = 0;
  uint64_t refused_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace sm::site
