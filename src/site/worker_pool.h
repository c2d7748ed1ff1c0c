#pragma once
// A fixed set of worker threads behind a bounded queue: the site server hands its heavy requests
// (a run page of 1,000 cells, a comparison, a calculation) to one, so that they wait for each
// other and never for the I/O threads that answer the cheap ones (docs/site.md, "Heavy pages").
//
// Fair and brief: tasks wait in one queue per key (the client's address), and the workers take
// the keys in turn, so a client with 60 comparisons queued delays another's run page by at most
// one task per worker. A task offered to a full queue is refused at once; one that waited longer
// than `max_wait_ns` is not run but expired (its `expire` answers 503), so a burst is queued
// rather than refused, and nobody waits without bound.
//
//   WorkerPool pool(2, {.max_queued = 1024, .max_wait_ns = 5'000'000'000});
//   if (!pool.try_submit(client, [] { render(); }, [] { answer_busy(); })) answer_busy();
//   pool.stop();   // drops what still waits, lets the running tasks finish, joins
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"

namespace sm::site {

class WorkerPool {
 public:
  struct Options {
    size_t max_queued = 64;        ///< tasks waiting beyond the running ones, all keys together
    int64_t max_wait_ns = 0;       ///< a task that waited longer is expired, not run (0: no limit)
    const Clock* clock = nullptr;  ///< measures the wait (null: the steady clock)
  };
  struct Counts {
    size_t running = 0;     ///< tasks a worker is executing now
    size_t queued = 0;      ///< tasks accepted and waiting for a worker
    uint64_t refused = 0;   ///< tasks refused since the start (queue full, or stopped)
    uint64_t expired = 0;   ///< tasks that waited past max_wait_ns since the start (expire ran)
  };

  /// Starts `threads` (≥ 1) workers. The workers block every signal (signals belong to the main
  /// thread).
  WorkerPool(int threads, Options options);
  WorkerPool(int threads, size_t max_queued) : WorkerPool(threads, Options{.max_queued = max_queued}) {}
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Queues `task` under `key`, or returns false without queueing when `max_queued` tasks
  /// already wait or the pool is stopped. `expire` (may be empty) runs on a worker instead of
  /// `task` when the task waited longer than max_wait_ns. Thread-safe.
  bool try_submit(const std::string& key, std::function<void()> task, std::function<void()> expire = {});
  bool try_submit(std::function<void()> task) { return try_submit("", std::move(task)); }

  /// A consistent snapshot. Thread-safe.
  Counts counts() const;

  /// Blocks until `done(counts)` holds; it is checked now and after every change of the counts.
  /// For tests and monitoring (no polling). Thread-safe.
  void wait_until(const std::function<bool(const Counts&)>& done) const;

  /// Refuses new tasks, destroys the ones still queued (never run), waits for the running ones
  /// and joins the workers. Idempotent; not from a worker.
  void stop();

 private:
  struct Task {
    std::function<void()> run;
    std::function<void()> expire;
    int64_t queued_at_ns = 0;
  };
  void work();
  Counts counts_locked() const { return {running_, queued_, refused_, expired_}; }

  const Options options_;
  const Clock& clock_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;  ///< a task was queued, started or finished; stop
  std::map<std::string, std::deque<Task>> queues_;  ///< per key; a key with nothing waiting is erased
  std::deque<std::string> turns_;  ///< the keys with tasks waiting, next to serve first
  size_t queued_ = 0;
  size_t running_ = 0;
  uint64_t refused_ = 0;
  uint64_t expired_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace sm::site
