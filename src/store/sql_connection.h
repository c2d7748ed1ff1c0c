#pragma once
// The little a store needs from a SQL database, so one implementation of the store (SqlStore)
// runs on SQLite and on PostgreSQL. Statements are constant text with numbered parameters
// ($1, $2, ...) in both dialects; values only ever travel as bound parameters, never inside the
// SQL text.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/error.h"

namespace sm::store {

/// A bound parameter: SQL NULL, an integer, a float or text.
using SqlParam = std::variant<std::nullptr_t, int64_t, double, std::string>;

/// One result row. Every value arrives as text (PostgreSQL's text format; SQLite values are
/// printed losslessly), NULL as std::nullopt; the accessors parse.
struct SqlRow {
  std::vector<std::optional<std::string>> cells;  ///< one per selected column, in order

  bool is_null(size_t i) const { return !cells.at(i).has_value(); }
  /// The text of column i; empty for NULL.
  const std::string& text(size_t i) const;
  /// Column i as an integer; 0 for NULL or text that is not one.
  int64_t integer(size_t i) const;
  /// Column i as a number; std::nullopt for NULL.
  std::optional<double> number(size_t i) const;
  /// Column i as an integer; std::nullopt for NULL.
  std::optional<int64_t> optional_integer(size_t i) const;
};

/// The SQL dialect a connection speaks.
enum class SqlDialect { Sqlite, Postgres };

/// One open database connection. Not thread-safe: one thread uses it at a time (the store's
/// pool hands each connection to one caller).
class SqlConnection {
 public:
  virtual ~SqlConnection() = default;

  virtual SqlDialect dialect() const = 0;
  /// Runs a statement that returns rows.
  virtual Result<std::vector<SqlRow>> query(std::string_view sql, std::span<const SqlParam> params) = 0;
  /// Runs a statement that returns no rows; returns the number of rows it changed.
  virtual Result<int64_t> execute(std::string_view sql, std::span<const SqlParam> params) = 0;
  /// Starts a transaction that will write. SQLite takes the write lock now (BEGIN IMMEDIATE),
  /// so two writers queue instead of failing with SQLITE_BUSY at commit.
  virtual Result<void> begin_write() = 0;
  /// Commits. When it returns, the transaction survives the process being killed.
  virtual Result<void> commit() = 0;
  /// Rolls back; never fails visibly (a connection whose rollback failed is reset).
  virtual void rollback() = 0;
  /// Inside a write transaction: serialises schema migrations between processes.
  /// PostgreSQL takes a transaction-scoped advisory lock; SQLite's write lock already does.
  virtual Result<void> lock_for_migration() = 0;
  /// False when the connection is broken and should be replaced.
  virtual bool healthy() = 0;
};

}  // namespace sm::store
