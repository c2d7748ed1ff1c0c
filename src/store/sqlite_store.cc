#include "store/sqlite_store.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include <unordered_map>

#include "store/sql_store.h"

namespace sm::store {

namespace {

constexpr int kBusyTimeoutMs = 30'000;  // writers queue on the file lock for up to this long

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }

  SqlDialect dialect() const override { return SqlDialect::Sqlite; }

  Result<std::vector<SqlRow>> query(std::string_view sql, std::span<const SqlParam> params) override {
    auto stmt = prepare(sql, params);
    if (!stmt) return std::unexpected(stmt.error());
    std::vector<SqlRow> rows;
    for (;;) {
      int rc = sqlite3_step(*stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return error(sql, rc, *stmt);
      SqlRow row;
      const int n = sqlite3_column_count(*stmt);
      row.cells.reserve(n);
      for (int i = 0; i < n; ++i) row.cells.push_back(column_text(*stmt, i));
      rows.push_back(std::move(row));
    }
    sqlite3_reset(*stmt);
    return rows;
  }

  Result<int64_t> execute(std::string_view sql, std::span<const SqlParam> params) override {
    auto stmt = prepare(sql, params);
    if (!stmt) return std::unexpected(stmt.error());
    int rc;
    while ((rc = sqlite3_step(*stmt)) == SQLITE_ROW) {
    }
    if (rc != SQLITE_DONE) return error(sql, rc, *stmt);
    sqlite3_reset(*stmt);
    return static_cast<int64_t>(sqlite3_changes64(db_));
  }

  Result<void> begin_write() override { return exec("BEGIN IMMEDIATE"); }
  Result<void> commit() override { return exec("COMMIT"); }
  void rollback() override {
    if (!sqlite3_get_autocommit(db_)) (void)exec("ROLLBACK");
  }
  Result<void> lock_for_migration() override { return {}; }
  bool healthy() override { return sqlite3_get_autocommit(db_) != 0; }

  Result<void> exec(const char* sql) {
    char* message = nullptr;
    int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
    if (rc == SQLITE_OK) return {};
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return fail(ErrorCode::Io, fmt::format("sqlite {}: {}: {}", path_, sql, text));
  }

 private:
  // A cached prepared statement with `params` bound to $1, $2, ...
  Result<sqlite3_stmt*> prepare(std::string_view sql, std::span<const SqlParam> params) {
    sqlite3_stmt* stmt = nullptr;
    if (auto it = statements_.find(std::string(sql)); it != statements_.end()) {
      stmt = it->second;
      sqlite3_reset(stmt);
      sqlite3_clear_bindings(stmt);
    } else {
      const char* tail = nullptr;
      int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                                  &tail);
      if (rc != SQLITE_OK) return fail(ErrorCode::Internal, fmt::format("sqlite prepare: {}: {}", sqlite3_errmsg(db_), sql));
      statements_.emplace(std::string(sql), stmt);
    }
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string name = fmt::format("${}", i + 1);
      const int index = sqlite3_bind_parameter_index(stmt, name.c_str());
      if (index == 0) continue;  // the statement does not use this parameter
      int rc = std::visit(
          [&](const auto& v) -> int {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::nullptr_t>) return sqlite3_bind_null(stmt, index);
            else if constexpr (std::is_same_v<T, int64_t>) return sqlite3_bind_int64(stmt, index, v);
            else if constexpr (std::is_same_v<T, double>) return sqlite3_bind_double(stmt, index, v);
            else return sqlite3_bind_text64(stmt, index, v.data(), v.size(), SQLITE_STATIC, SQLITE_UTF8);
          },
          params[i]);
      if (rc != SQLITE_OK) return fail(ErrorCode::Internal, fmt::format("sqlite bind {}: {}", name, sqlite3_errstr(rc)));
    }
    return stmt;
  }

  static std::optional<std::string> column_text(sqlite3_stmt* stmt, int i) {
    switch (sqlite3_column_type(stmt, i)) {
      case SQLITE_NULL: return std::nullopt;
      case SQLITE_INTEGER: return std::to_string(sqlite3_column_int64(stmt, i));
      case SQLITE_FLOAT: return fmt::format("{}", sqlite3_column_double(stmt, i));  // shortest exact form
      default: {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
        return std::string(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(stmt, i)));
      }
    }
  }

  std::unexpected<Error> error(std::string_view sql, int rc, sqlite3_stmt* stmt) {
    std::string message = sqlite3_errmsg(db_);
    sqlite3_reset(stmt);
    const ErrorCode code = (rc & 0xff) == SQLITE_CONSTRAINT ? ErrorCode::InvalidArgument : ErrorCode::Io;
    return fail(code, fmt::format("sqlite {}: {} ({})", path_, message, sql.substr(0, 60)));
  }

  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace

Result<std::unique_ptr<SqlConnection>> open_sqlite_connection(const std::string& path, SqliteSync sync) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return fail(ErrorCode::Io, fmt::format("cannot open SQLite database {}: {}", path, message));
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  auto connection = std::make_unique<SqliteConnection>(db, path);
  for (const char* pragma : {"PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON"})
    if (auto ok = connection->exec(pragma); !ok) return std::unexpected(ok.error());
  if (auto ok = connection->exec(sync == SqliteSync::Full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
      !ok)
    return std::unexpected(ok.error());
  return std::unique_ptr<SqlConnection>(std::move(connection));
}

Result<std::unique_ptr<ResultStore>> open_sqlite_store(const std::string& path, int pool_size, SqliteSync sync) {
  auto store = SqlStore::open("sqlite", [path, sync] { return open_sqlite_connection(path, sync); }, pool_size);
  if (!store) return std::unexpected(store.error());
  return std::unique_ptr<ResultStore>(std::move(*store));
}

}  // namespace sm::store
