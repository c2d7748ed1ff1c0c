#pragma once
// The store's schema as an ordered list of versioned migrations, shared by SQLite and
// PostgreSQL. Applied versions are recorded in the schema_migrations table; opening a store
// applies the missing ones in one transaction, under a lock, so two servers starting at once
// on one PostgreSQL database do not race.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "result/result.h"
#include "store/sql_connection.h"

namespace sm::store {

/// One schema change.
struct Migration {
  int64_t version = 0;                        ///< 1, 2, ...: strictly increasing
  std::string_view description;               ///< one line, recorded in schema_migrations
  std::vector<std::string_view> statements;   ///< SQL both dialects accept, run in order
  std::vector<std::string_view> postgres_statements;  ///< when not empty, PostgreSQL runs these instead
  /// Run after the statements, in the same transaction: a change SQL cannot make (the stored
  /// results redacted). Nothing when null.
  Result<void> (*rewrite)(SqlConnection& connection) = nullptr;
};

/// One stored run's users at a speed (RunSummary::capacity) into the run_capacity table (migration 10).
Result<void> insert_capacity(SqlConnection& connection, const std::string& run_id, std::span<const CapacityPoint> points);

/// Migration 11's backfill: the retrieval and retrieval_failed columns of every stored run that
/// has retrieval checks, from its result.
Result<void> fill_retrieval_standing(SqlConnection& connection);

/// Migration 10's backfill: the run_capacity rows of every stored run, from its result.
Result<void> fill_run_capacity(SqlConnection& connection);

/// Migration 9's backfill: projected_figures of every stored run, from its result.
Result<void> mark_projected_figures(SqlConnection& connection);

/// Migration 7's rewrite: every stored result redacted as an upload now is
/// (redact_result_document); a run whose text changes gets its new text, content hash and the
/// summary's free-text columns (model, engine version, submitter). Pages through the runs.
Result<void> redact_stored_results(SqlConnection& connection);

/// Every migration, oldest first.
std::span<const Migration> migrations();

/// The newest version this build knows.
int64_t latest_schema_version();

/// Applies the missing migrations on `connection` in one write transaction and returns the
/// schema version now in force. Fails when the database is newer than this build.
Result<int64_t> migrate(SqlConnection& connection, std::string_view applied_at);

}  // namespace sm::store
