#include "site/worker_pool.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>

namespace sm::site {

WorkerPool::WorkerPool(int threads, Options options)
    : options_(options), clock_(options.clock ? *options.clock : SteadyClock::instance()) {
  const int n = std::max(1, threads);
  threads_.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    threads_.emplace_back([this] {
      sigset_t all;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, nullptr);
      work();
    });
  }
}

WorkerPool::~WorkerPool() { stop(); }

bool WorkerPool::try_submit(const std::string& key, std::function<void()> task, std::function<void()> expire) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queued_ >= options_.max_queued) {
      ++refused_;
      changed_.notify_all();
      return false;
    }
    auto& queue = queues_[key];
    if (queue.empty()) turns_.push_back(key);
    queue.push_back(Task{std::move(task), std::move(expire), clock_.now_ns()});
    ++queued_;
  }
  changed_.notify_all();
  return true;
}

WorkerPool::Counts WorkerPool::counts() const {
  std::lock_guard lock(mutex_);
  return counts_locked();
}

void WorkerPool::wait_until(const std::function<bool(const Counts&)>& done) const {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return done(counts_locked()); });
}

void WorkerPool::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || queued_ > 0; });
    if (stopping_) return;
    // The key whose turn it is gives its oldest task, then goes to the back of the turns.
    const std::string key = std::move(turns_.front());
    turns_.pop_front();
    auto queue = queues_.find(key);
    Task task = std::move(queue->second.front());
    queue->second.pop_front();
    if (queue->second.empty()) queues_.erase(queue);
    else turns_.push_back(key);
    --queued_;
    const bool expired =
        options_.max_wait_ns > 0 && clock_.now_ns() - task.queued_at_ns > options_.max_wait_ns && task.expire;
    if (expired) ++expired_;
    ++running_;
    lock.unlock();
    changed_.notify_all();
    if (expired) task.expire();
    else task.run();
    task = Task{};  // what it holds (a connection's session) is released outside the lock
    lock.lock();
    --running_;
    changed_.notify_all();
  }
}

void WorkerPool::stop() {
  std::map<std::string, std::deque<Task>> dropped;
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    dropped.swap(queues_);
    turns_.clear();
    queued_ = 0;
  }
  changed_.notify_all();
  dropped.clear();  // outside the lock: a task's captures may take time to destroy
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  std::lock_guard lock(mutex_);
  threads_.clear();
}

}  // namespace sm::site
