#pragma once
// Where the results site keeps runs and upload tokens: SQLite (one file, the default) or
// PostgreSQL (when many machines upload). Both run the same versioned migrations and the same
// statements (store/sql_statements.cc); only the connection differs.
//
//   auto store = sm::store::open_store("sqlite:results.db");   // or "postgresql://..."
//   if (!store) ...;
//   auto put = (*store)->put_run(record);                        // Result<PutStatus>
//   auto page = (*store)->list_runs({.gpu = "RTX 3090 24GB"}, RunOrder::BestTotal, {.limit = 20});
//
// Thread safety: every method may be called from any thread at the same time; each call borrows
// a connection from the store's pool for its duration.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "store/store_types.h"

namespace sm::store {

class ResultStore {
 public:
  virtual ~ResultStore() = default;

  /// "sqlite" or "postgresql".
  virtual std::string_view backend() const = 0;
  /// The schema version after migrations (the highest applied).
  virtual Result<int64_t> schema_version() = 0;

  /// Stores one run in one transaction. Returns once the transaction is committed: an
  /// acknowledged run survives the server being killed (see docs/site.md, Durability).
  virtual Result<PutStatus> put_run(const RunRecord& record) = 0;
  /// Stores several runs in one transaction (all or nothing); one status per record.
  virtual Result<std::vector<PutStatus>> put_runs(const std::vector<RunRecord>& records) = 0;
  /// The stored JSON text of a visible run; std::nullopt when there is no such run or it is hidden.
  virtual Result<std::optional<std::string>> get_run_json(std::string_view run_id) = 0;
  /// The summary of a run, hidden or not (RunSummary::hidden); std::nullopt when there is no such run.
  virtual Result<std::optional<RunSummary>> get_run_summary(std::string_view run_id) = 0;
  /// A page of runs matching `filter`, in `order`: from `page.cursor` (keyset: the same cost at
  /// any depth) or else `page.offset`; with the cursors of the pages either side. A cursor of
  /// another order is InvalidArgument.
  virtual Result<RunPage> list_runs(const RunFilter& filter, RunOrder order, const PageRequest& page) = 0;
  /// Per GPU: runs, distinct models, best headline numbers; by name. Runs on unknown hardware
  /// (kUnknownHardwareGroup) are no group: list them with RunFilter::gpu. `kind` ("" = any)
  /// keeps one kind. Hidden runs are left out; flagged ones (RunSummary::flagged) are counted but
  /// give no best number.
  virtual Result<std::vector<GroupSummary>> hardware_summary(std::string_view kind = "") = 0;
  /// Per model: runs, distinct GPUs (unknown hardware not counted), best headline numbers; by name.
  virtual Result<std::vector<GroupSummary>> model_summary(std::string_view kind = "") = 0;
  /// Distinct values of every filter column of the visible runs, sorted.
  virtual Result<FilterValues> filter_values() = 0;

  /// The visible measured runs whose catalog match is `key`, newest first, at most `limit`.
  virtual Result<std::vector<RunSummary>> list_runs_for_setup(const SetupKey& key, int64_t limit) = 0;
  /// Runs matching `filter`, hidden ones too, newest first, at most `limit`; `total` counts them all.
  virtual Result<RunPage> list_runs_for_moderation(const ModerationFilter& filter, int64_t limit) = 0;
  /// The id of the stored run with these measurements (RunRecord::measurements_sha256); nullopt when none.
  virtual Result<std::optional<std::string>> find_run_by_measurements(std::string_view measurements_sha256) = 0;
  /// Runs whose site checks used another catalog (RunSummary::checked_with differs from
  /// `checked_with`), hidden ones too, by run id after `after_run_id`, at most `limit`: each
  /// summary with its stored JSON text. The site checks them again (site/recheck_runs.h).
  virtual Result<std::vector<StoredRun>> runs_checked_otherwise(std::string_view checked_with,
                                                                std::string_view after_run_id, int64_t limit) = 0;
  /// Writes what the site's checks work out (RunSummary: gpu, model, quantization, the reported
  /// names, the calc_* columns, implausible, synthetic_model, unverified_hardware, checked_with)
  /// for each run `summary.run_id`, all in one transaction; returns how many runs changed.
  virtual Result<int64_t> update_checks(const std::vector<RunSummary>& summaries) = 0;
  /// Hides (or shows again) a run; returns how many runs changed (0: no such run, or already so).
  virtual Result<int64_t> set_hidden(std::string_view run_id, bool hidden) = 0;
  /// Deletes a run for good; returns how many were deleted (0 or 1).
  virtual Result<int64_t> delete_run(std::string_view run_id) = 0;

  /// A number that changes whenever runs are stored, hidden, shown again or deleted, by any
  /// process on this database: a listing cached under one value is still true while it reads
  /// the same (store/cached_store.h). Read before the data it vouches for.
  virtual Result<int64_t> generation() = 0;
  /// Takes one request from the token bucket `key` kept in the store, shared by every process
  /// on this database: `per_s` refill a second, `burst` the bucket's size, `now_ms` the caller's
  /// wall clock (ms since the Unix epoch; machines are assumed NTP-synchronised).
  virtual Result<RateDecision> take_rate_token(std::string_view key, double per_s, double burst, int64_t now_ms) = 0;

  /// Stores a new token under its SHA-256 hex; `token_id` and `name` as given.
  virtual Result<void> create_token(const TokenInfo& token, std::string_view token_sha256_hex) = 0;
  /// The valid (not revoked) token with this hash; std::nullopt when none.
  virtual Result<std::optional<TokenInfo>> find_token(std::string_view token_sha256_hex) = 0;
  /// Revokes the token with this id if it is valid; returns how many (0 or 1). By id only: names
  /// are not unique, and a name would revoke every token that shares it.
  virtual Result<int64_t> revoke_token(std::string_view token_id, std::string_view revoked_at) = 0;
  /// Every token, oldest first, with its upload count.
  virtual Result<std::vector<TokenInfo>> list_tokens() = 0;
};

/// How a store is opened.
struct StoreOptions {
  int pool_size = 4;              ///< connections opened lazily, at most this many at once
  bool sqlite_full_sync = false;  ///< SQLite: fsync the log at every commit (survives power loss, slower)
};

/// Opens (and migrates) the store a DSN names:
///   "sqlite:PATH" (or a path ending in .db/.sqlite) — SQLite in WAL mode, the file created if absent;
///   "postgresql://..." or "postgres://..." — a libpq connection URI.
Result<std::unique_ptr<ResultStore>> open_store(std::string_view dsn, const StoreOptions& options = {});

/// How many runs are on unknown hardware (kUnknownHardwareGroup): listed, never ranked.
Result<int64_t> count_unknown_hardware_runs(ResultStore& store);

/// The DSN with any password replaced by "***", for log lines.
std::string redact_dsn(std::string_view dsn);

}  // namespace sm::store
