#include "site/worker_pool.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>

namespace sm::site {

WorkerPool::WorkerPool(int threads, size_t max_queued) : max_queued_(max_queued) {
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

bool WorkerPool::try_submit(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= max_queued_) {
      ++refused_;
      changed_.notify_all();
      return false;
    }
    queue_.push_back(std::move(task));
  }
  changed_.notify_all();
  return true;
}

WorkerPool::Counts WorkerPool::counts() const {
  std::lock_guard lock(mutex_);
  return {running_, queue_.size(), refused_};
}

void WorkerPool::wait_until(const std::function<bool(const Counts&)>& done) const {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return done(Counts{running_, queue_.size(), refused_}); });
}

void WorkerPool::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    changed_.notify_all();
    task();
    task = nullptr;  // what it holds (a connection's session) is released outside the lock
    lock.lock();
    --running_;
    changed_.notify_all();
  }
}

void WorkerPool::stop() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    dropped.swap(queue_);
  }
  changed_.notify_all();
  dropped.clear();  // outside the lock: a task's captures may take time to destroy
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  std::lock_guard lock(mutex_);
  threads_.clear();
}

}  // namespace sm::site
