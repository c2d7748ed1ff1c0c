#pragma once
// A bounded pool of SQL connections opened on demand. A caller borrows one for the length of a
// store call; a broken connection is dropped instead of returned.
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "store/sql_connection.h"

namespace sm::store {

class ConnectionPool {
 public:
  using Factory = std::function<Result<std::unique_ptr<SqlConnection>>()>;

  /// Opens nothing yet; at most `max_size` (≥ 1) connections will be open at once.
  ConnectionPool(Factory factory, int max_size);

  /// A borrowed connection, returned to the pool when destroyed.
  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<SqlConnection> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    SqlConnection& operator*() const { return *connection_; }
    SqlConnection* operator->() const { return connection_.get(); }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<SqlConnection> connection_;
  };

  /// Borrows an idle connection, opens a new one while under the limit, else waits for one.
  /// Thread-safe.
  Result<Lease> acquire();

 private:
  void release(std::unique_ptr<SqlConnection> connection);

  Factory factory_;
  int max_size_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<SqlConnection>> idle_;  ///< open and not borrowed
  int open_ = 0;                                      ///< idle + borrowed + being opened
};

}  // namespace sm::store
