#pragma once
// The ResultStore over any SqlConnection: the one implementation SQLite and PostgreSQL share.
// sqlite_store.cc and postgres_store.cc only open connections.
#include <memory>
#include <span>
#include <string>

#include "store/connection_pool.h"
#include "store/result_store.h"

namespace sm::store {

class SqlStore final : public ResultStore {
 public:
  /// Opens one connection, runs the migrations on it and keeps it in the pool.
  static Result<std::unique_ptr<SqlStore>> open(std::string backend, ConnectionPool::Factory factory, int pool_size);

  std::string_view backend() const override { return backend_; }
  Result<int64_t> schema_version() override;
  Result<PutStatus> put_run(const RunRecord& record) override;
  Result<std::vector<PutStatus>> put_runs(const std::vector<RunRecord>& records) override;
  Result<std::optional<std::string>> get_run_json(std::string_view run_id) override;
  Result<std::optional<RunSummary>> get_run_summary(std::string_view run_id) override;
  Result<RunPage> list_runs(const RunFilter& filter, RunOrder order, const PageRequest& page) override;
  Result<std::vector<GroupSummary>> hardware_summary(std::string_view kind = "") override;
  Result<std::vector<GroupSummary>> model_summary(std::string_view kind = "") override;
  Result<FilterValues> filter_values() override;
  Result<std::vector<RunSummary>> list_runs_for_setup(const SetupKey& key, int64_t limit) override;
  Result<RunPage> list_runs_for_moderation(const ModerationFilter& filter, int64_t limit) override;
  Result<std::optional<std::string>> find_run_by_measurements(std::string_view measurements_sha256) override;
  Result<std::vector<StoredRun>> runs_checked_otherwise(std::string_view checked_with, std::string_view after_run_id,
                                                        int64_t limit) override;
  Result<int64_t> update_checks(const std::vector<RunSummary>& summaries) override;
  Result<int64_t> set_hidden(std::string_view run_id, bool hidden) override;
  Result<int64_t> delete_run(std::string_view run_id) override;
  Result<int64_t> generation() override;
  Result<RateDecision> take_rate_token(std::string_view key, double per_s, double burst, int64_t now_ms) override;
  Result<void> create_token(const TokenInfo& token, std::string_view token_sha256_hex) override;
  Result<std::optional<TokenInfo>> find_token(std::string_view token_sha256_hex) override;
  Result<int64_t> revoke_token(std::string_view token_id, std::string_view revoked_at) override;
  Result<std::vector<TokenInfo>> list_tokens() override;

 private:
  SqlStore(std::string backend, ConnectionPool::Factory factory, int pool_size)
      : backend_(std::move(backend)), pool_(std::move(factory), pool_size) {}
  /// Runs a group statement; its $1 is kUnknownHardwareGroup, $2 the kind ('' = any).
  Result<std::vector<GroupSummary>> groups(std::string_view sql, std::string_view kind);
  /// After a committed write that changed runs: PostgreSQL's change counter moves now (SQLite's
  /// moved inside the transaction). Cannot fail the write, which stands either way.
  void bump_generation_after_commit(SqlConnection& c);
  /// Ends a write transaction begun on `c`: moves the change counter when `changed` (SQLite in
  /// the transaction, PostgreSQL after it), commits, rolls back on failure.
  Result<void> commit_write(SqlConnection& c, bool changed);
  /// Runs one write statement in its own transaction; returns the rows changed.
  Result<int64_t> write_one(std::string_view sql, std::span<const SqlParam> params);

  std::string backend_;
  ConnectionPool pool_;
};

}  // namespace sm::store
