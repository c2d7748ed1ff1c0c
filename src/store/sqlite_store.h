#pragma once
// The SQLite backend: one database file in WAL mode.
//
// Durability: a transaction is committed when its COMMIT has appended the transaction's frames to
// the write-ahead log with write(2). With synchronous=NORMAL SQLite does not fsync the log at
// every commit, but the frames are in the operating system's page cache the moment write(2)
// returns, so a killed server process (SIGKILL, crash) loses nothing it acknowledged; only a
// power cut or kernel crash could lose the last transactions (`synchronous=FULL`, the
// `--sqlite-sync full` flag of serve, closes that gap at the cost of one fsync per upload).
#include <memory>
#include <string>

#include "core/error.h"
#include "store/result_store.h"
#include "store/sql_connection.h"

namespace sm::store {

/// How often SQLite fsyncs the write-ahead log.
enum class SqliteSync {
  Normal,  ///< at checkpoints: survives process kill (the default)
  Full,    ///< at every commit: also survives power loss
};

/// Opens a connection to the SQLite file at `path` (created if absent) in WAL mode.
Result<std::unique_ptr<SqlConnection>> open_sqlite_connection(const std::string& path, SqliteSync sync);

/// The store over SQLite at `path`, migrated.
Result<std::unique_ptr<ResultStore>> open_sqlite_store(const std::string& path, int pool_size,
                                                       SqliteSync sync = SqliteSync::Normal);

}  // namespace sm::store
