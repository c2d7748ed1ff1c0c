#include "store/connection_pool.h"

namespace sm::store {

ConnectionPool::ConnectionPool(Factory factory, int max_size)
    : factory_(std::move(factory)), max_size_(max_size < 1 ? 1 : max_size) {}

ConnectionPool::Lease::~Lease() {
  if (pool_ && connection_) pool_->release(std::move(connection_));
}

Result<ConnectionPool::Lease> ConnectionPool::acquire() {
  {
    std::unique_lock lock(mutex_);
    returned_.wait(lock, [this] { return !idle_.empty() || open_ < max_size_; });
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(c));
    }
    ++open_;  // reserve the slot; open outside the lock
  }
  auto c = factory_();
  if (!c) {
    std::lock_guard lock(mutex_);
    --open_;
    returned_.notify_one();
    return std::unexpected(c.error());
  }
  return Lease(this, std::move(*c));
}

void ConnectionPool::release(std::unique_ptr<SqlConnection> connection) {
  const bool keep = connection->healthy();
  if (!keep) connection.reset();  // close outside the lock
  std::lock_guard lock(mutex_);
  if (keep) idle_.push_back(std::move(connection));
  else --open_;
  returned_.notify_one();
}

}  // namespace sm::store
