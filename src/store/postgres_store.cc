#include "store/postgres_store.h"

#include <libpq-fe.h>

#include <fmt/format.h>

#include <array>

#include "store/sql_store.h"

namespace sm::store {

namespace {

// Type OIDs of the parameters (fixed in PostgreSQL's catalog, pg_type.dat).
constexpr Oid kInt8Oid = 20;
constexpr Oid kTextOid = 25;
constexpr Oid kFloat8Oid = 701;

// Any number for the advisory lock that serialises migrations: "speedmatrix" on a phone keypad.
constexpr int64_t kMigrationLockKey = 77333628749;

void ignore_notice(void*, const char*) {}

class PostgresConnection final : public SqlConnection {
 public:
  explicit PostgresConnection(PGconn* conn) : conn_(conn) {}
  ~PostgresConnection() override { PQfinish(conn_); }

  SqlDialect dialect() const override { return SqlDialect::Postgres; }

  Result<std::vector<SqlRow>> query(std::string_view sql, std::span<const SqlParam> params) override {
    auto res = run(sql, params);
    if (!res) return std::unexpected(res.error());
    PGresult* r = res->get();
    std::vector<SqlRow> rows;
    const int n_rows = PQntuples(r);
    const int n_cols = PQnfields(r);
    rows.reserve(n_rows);
    for (int i = 0; i < n_rows; ++i) {
      SqlRow row;
      row.cells.reserve(n_cols);
      for (int j = 0; j < n_cols; ++j) {
        if (PQgetisnull(r, i, j)) row.cells.emplace_back(std::nullopt);
        else row.cells.emplace_back(std::string(PQgetvalue(r, i, j), static_cast<size_t>(PQgetlength(r, i, j))));
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  Result<int64_t> execute(std::string_view sql, std::span<const SqlParam> params) override {
    auto res = run(sql, params);
    if (!res) return std::unexpected(res.error());
    const char* tuples = PQcmdTuples(res->get());
    return tuples && *tuples ? std::stoll(tuples) : 0;
  }

  Result<void> begin_write() override { return simple("BEGIN"); }
  Result<void> commit() override { return simple("COMMIT"); }
  void rollback() override {
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) (void)simple("ROLLBACK");
  }
  Result<void> lock_for_migration() override {
    const std::array<SqlParam, 1> key = {kMigrationLockKey};
    auto r = query("SELECT pg_advisory_xact_lock($1)", key);
    if (!r) return std::unexpected(r.error());
    return {};
  }
  bool healthy() override {
    return PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) == PQTRANS_IDLE;
  }

 private:
  using ResultPtr = std::unique_ptr<PGresult, decltype(&PQclear)>;

  Result<ResultPtr> run(std::string_view sql, std::span<const SqlParam> params) {
    const size_t n = params.size();
    std::vector<std::string> text(n);
    std::vector<const char*> values(n, nullptr);
    std::vector<Oid> types(n, 0);
    for (size_t i = 0; i < n; ++i) {
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::nullptr_t>) {
              types[i] = 0;  // unknown: the server infers it from the context
            } else if constexpr (std::is_same_v<T, int64_t>) {
              types[i] = kInt8Oid;
              text[i] = std::to_string(v);
              values[i] = text[i].c_str();
            } else if constexpr (std::is_same_v<T, double>) {
              types[i] = kFloat8Oid;
              text[i] = fmt::format("{}", v);  // shortest form that reads back exactly
              values[i] = text[i].c_str();
            } else {
              types[i] = kTextOid;
              values[i] = v.c_str();
            }
          },
          params[i]);
    }
    const std::string statement(sql);
    ResultPtr r(PQexecParams(conn_, statement.c_str(), static_cast<int>(n), types.data(), values.data(), nullptr,
                             nullptr, 0),
                &PQclear);
    const ExecStatusType status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
    std::string message = r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn_);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    const char* state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
    // Class 23: integrity constraint violation (a duplicate token hash, ...): the caller's input.
    const bool constraint = state && state[0] == '2' && state[1] == '3';
    const ErrorCode code =
        PQstatus(conn_) != CONNECTION_OK ? ErrorCode::Network : constraint ? ErrorCode::InvalidArgument : ErrorCode::Io;
    return fail(code, fmt::format("postgresql: {} ({})", message, sql.substr(0, 60)));
  }

  Result<void> simple(const char* sql) {
    auto r = run(sql, {});
    if (!r) return std::unexpected(r.error());
    return {};
  }

  PGconn* conn_;
};

}  // namespace

Result<std::unique_ptr<SqlConnection>> open_postgres_connection(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (!conn) return fail(ErrorCode::Network, "postgresql: out of memory opening a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    return fail(ErrorCode::Network, fmt::format("cannot connect to PostgreSQL {}: {}", redact_dsn(conninfo), message));
  }
  PQsetNoticeProcessor(conn, &ignore_notice, nullptr);  // "relation already exists, skipping" and the like
  return std::unique_ptr<SqlConnection>(std::make_unique<PostgresConnection>(conn));
}

Result<std::unique_ptr<ResultStore>> open_postgres_store(const std::string& conninfo, int pool_size) {
  auto store = SqlStore::open("postgresql", [conninfo] { return open_postgres_connection(conninfo); }, pool_size);
  if (!store) return std::unexpected(store.error());
  return std::unique_ptr<ResultStore>(std::move(*store));
}

}  // namespace sm::store
