#include "store/migrations.h"

#include <fmt/format.h>

#include <array>

#include <nlohmann/json.hpp>

#include "core/sha256.h"
#include "result/redact_document.h"
#include "result/result_json.h"
#include "store/run_summary.h"
#include "store/sort_keys.h"
#include "store/sql_statements.h"

namespace sm::store {

namespace {

// Migration 5: an index for every listing order (runs list, leaderboard, a GPU's or a model's
// runs), each ending in the order's tie-breakers so a keyset page is one range of it; the old
// one-column indexes they cover go. Shared by both dialects.
#define SM_LISTING_INDEXES                                                                              \
  "DROP INDEX runs_uploaded_at", "DROP INDEX runs_kind", "DROP INDEX runs_gpu", "DROP INDEX runs_model",  \
      "CREATE INDEX runs_newest ON runs (uploaded_at, run_id)",                                          \
      "CREATE INDEX runs_kind_newest ON runs (kind, uploaded_at, run_id)",                               \
      "CREATE INDEX runs_single_stream ON runs (" SM_KEY_SINGLE_STREAM ", uploaded_at, run_id)",         \
      "CREATE INDEX runs_kind_single_stream ON runs (kind, " SM_KEY_SINGLE_STREAM ", uploaded_at, run_id)", \
      "CREATE INDEX runs_best_total ON runs (" SM_KEY_BEST_TOTAL ", uploaded_at, run_id)",               \
      "CREATE INDEX runs_kind_best_total ON runs (kind, " SM_KEY_BEST_TOTAL ", uploaded_at, run_id)",    \
      "CREATE INDEX runs_prefill_32k ON runs (" SM_KEY_PREFILL_32K ", uploaded_at, run_id)",             \
      "CREATE INDEX runs_kind_prefill_32k ON runs (kind, " SM_KEY_PREFILL_32K ", uploaded_at, run_id)",  \
      "CREATE INDEX runs_tokens_per_joule ON runs (" SM_KEY_TOKENS_PER_JOULE ", uploaded_at, run_id)",   \
      "CREATE INDEX runs_kind_tokens_per_joule ON runs (kind, " SM_KEY_TOKENS_PER_JOULE ", uploaded_at, run_id)", \
      "CREATE INDEX runs_gpu_best_total ON runs (gpu, kind, " SM_KEY_BEST_TOTAL ", uploaded_at, run_id)", \
      "CREATE INDEX runs_model_best_total ON runs (model, kind, " SM_KEY_BEST_TOTAL ", uploaded_at, run_id)", \
      "CREATE TABLE IF NOT EXISTS rate_buckets (bucket_key TEXT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL, updated_ms BIGINT NOT NULL)"

// Migration 6: a ranking (the leaderboard) is of one kind and one profile (result/profile.h), so
// each ranking order has an index that starts with both: a page of the current standard's runs is
// one range of it, whatever other profiles are stored. Shared by both dialects.
#define SM_PROFILE_RANKING_INDEXES                                                                      \
  "CREATE INDEX runs_kind_profile_single_stream ON runs (kind, profile, " SM_KEY_SINGLE_STREAM ", uploaded_at, run_id)", \
      "CREATE INDEX runs_kind_profile_best_total ON runs (kind, profile, " SM_KEY_BEST_TOTAL ", uploaded_at, run_id)",   \
      "CREATE INDEX runs_kind_profile_prefill_32k ON runs (kind, profile, " SM_KEY_PREFILL_32K ", uploaded_at, run_id)", \
      "CREATE INDEX runs_kind_profile_tokens_per_joule ON runs (kind, profile, " SM_KEY_TOKENS_PER_JOULE             \
      ", uploaded_at, run_id)"

// Migration 6's backfill: a run stored before it gets the profile its stored result names. Only
// results with a key named "profile" are parsed (the text is canonical JSON, so such a key reads
// `"profile":`); the others, written before profiles existed, keep '' (a matrix of their own). A
// value that is not a string reads as none. PostgreSQL reads the text as `json`, not `jsonb`, which
// would refuse a \u0000 a stored string may hold.
#define SM_PROFILE_COLUMN "ALTER TABLE runs ADD COLUMN profile TEXT NOT NULL DEFAULT ''"
#define SM_PROFILE_MENTIONED " WHERE result_json LIKE '%\"profile\":%'"

// Types both dialects accept with the same meaning: TEXT, BIGINT (SQLite: INTEGER affinity) and
// DOUBLE PRECISION (SQLite: REAL affinity; PostgreSQL's REAL would be 4-byte). Ids are text made
// by the application, so no dialect-specific auto-increment is needed.
const std::vector<Migration> kMigrations = {
    {1,
     "runs and upload tokens",
     {R"sql(CREATE TABLE tokens (
  token_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT
))sql",
      R"sql(CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  gpu TEXT NOT NULL,
  model TEXT NOT NULL,
  engine TEXT NOT NULL,
  engine_version TEXT NOT NULL,
  quantization TEXT NOT NULL,
  submitted_by TEXT NOT NULL,
  started_at TEXT NOT NULL,
  uploaded_at TEXT NOT NULL,
  token_id TEXT REFERENCES tokens (token_id),
  single_stream_tok_s DOUBLE PRECISION,
  single_stream_context BIGINT,
  best_total_tok_s DOUBLE PRECISION,
  best_total_context BIGINT,
  best_total_concurrency BIGINT,
  prefill_32k_tok_s DOUBLE PRECISION,
  valid_cells BIGINT NOT NULL,
  decode_cells BIGINT NOT NULL,
  content_sha256 TEXT NOT NULL,
  result_json TEXT NOT NULL
))sql",
      "CREATE INDEX runs_gpu ON runs (gpu)",
      "CREATE INDEX runs_model ON runs (model)",
      "CREATE INDEX runs_engine ON runs (engine)",
      "CREATE INDEX runs_quantization ON runs (quantization)",
      "CREATE INDEX runs_uploaded_at ON runs (uploaded_at)",
      "CREATE INDEX runs_token_id ON runs (token_id)"},
     {}},
    {2,
     "index runs by kind (measured, simulated, predicted)",
     {"CREATE INDEX runs_kind ON runs (kind)"},
     {}},
    // Runs stored before it keep NULL / '' here: they carry no telemetry (result.json had no
    // such fields), so "no figure, no verdict" is what they say.
    {3,
     "run summary: best tokens per joule and its cell, whose GPUs were read, throttling",
     {"ALTER TABLE runs ADD COLUMN best_tokens_per_joule DOUBLE PRECISION",
      "ALTER TABLE runs ADD COLUMN best_tokens_per_joule_context BIGINT",
      "ALTER TABLE runs ADD COLUMN best_tokens_per_joule_concurrency BIGINT",
      "ALTER TABLE runs ADD COLUMN gpu_telemetry TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE runs ADD COLUMN throttle_worst TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE runs ADD COLUMN throttled_cells BIGINT"},
     {}},
    // Runs stored before it read as unmatched to the calculator's catalog, plausible, not on a
    // synthetic model, visible, and without a measurements hash (so never taken for duplicates).
    // Simulated runs' engine becomes "sim", the value `engine=` filters document.
    {4,
     "checked uploads and kinds apart: catalog match, implausible flag, synthetic model, hidden, measurements hash",
     {"ALTER TABLE runs ADD COLUMN calc_gpu TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE runs ADD COLUMN calc_gpu_count BIGINT NOT NULL DEFAULT 0",
      "ALTER TABLE runs ADD COLUMN calc_model TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE runs ADD COLUMN calc_engine TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE runs ADD COLUMN implausible TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE runs ADD COLUMN synthetic_model BIGINT NOT NULL DEFAULT 0",
      "ALTER TABLE runs ADD COLUMN hidden BIGINT NOT NULL DEFAULT 0",
      "ALTER TABLE runs ADD COLUMN measurements_sha256 TEXT",
      "CREATE UNIQUE INDEX runs_measurements_sha256 ON runs (measurements_sha256)",
      "CREATE INDEX runs_calc_setup ON runs (calc_gpu, calc_model, calc_engine)",
      "UPDATE runs SET engine = 'sim' WHERE kind = 'simulated'"},
     {}},
    // Scale-out: several servers on one database. The change counter their listing caches check
    // (sql_statements.h: a row in SQLite, a sequence in PostgreSQL), upload rate limits kept in
    // the store, and the listing indexes.
    {5,
     "scale-out: an index per listing order (keyset pages), a change counter for caches, shared rate limits",
     {SM_LISTING_INDEXES, "CREATE TABLE IF NOT EXISTS site_generation (id BIGINT PRIMARY KEY, generation BIGINT NOT NULL)",
      "INSERT INTO site_generation (id, generation) VALUES (1, 0) ON CONFLICT DO NOTHING"},
     {SM_LISTING_INDEXES, "CREATE SEQUENCE IF NOT EXISTS site_generation_seq"}},
    // Ranked like with like: only runs of the current standard profile are ranked; the rest are
    // listed apart (docs/site.md, "Ranked like with like").
    {6,
     "profiles: each run's settings.profile, backfilled from its stored result; ranking indexes by kind and profile",
     {SM_PROFILE_COLUMN,
      "UPDATE runs SET profile = COALESCE(CASE WHEN json_type(result_json, '$.settings.profile') = 'text' THEN"
      " json_extract(result_json, '$.settings.profile') END, '')" SM_PROFILE_MENTIONED,
      SM_PROFILE_RANKING_INDEXES},
     {SM_PROFILE_COLUMN,
      "UPDATE runs SET profile = COALESCE(CASE WHEN json_typeof(result_json::json #> '{settings,profile}') = 'string'"
      " THEN result_json::json #>> '{settings,profile}' END, '')" SM_PROFILE_MENTIONED,
      SM_PROFILE_RANKING_INDEXES}},
    // Redaction on ingest (docs/site.md, "Redaction"): uploads are redacted from now on; the runs
    // stored before are redacted once here.
    {7, "redaction: stored results redacted as run redacts (credentials in URLs, keys in commands and notes)", {}, {},
     &redact_stored_results},
    // One name per GPU and model (docs/site.md): the names the run reported beside the canonical
    // ones, runs on GPUs the catalog does not know, and the catalog the checks last used. Runs
    // stored before read as never checked (checked_with ''): the site checks them again when it
    // starts (site/recheck_runs.h), with the catalog of its build.
    {8,
     "one name per GPU and model: reported names, unverified hardware, the catalog fingerprint of the checks",
     {"ALTER TABLE runs ADD COLUMN gpu_reported TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE runs ADD COLUMN model_reported TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE runs ADD COLUMN unverified_hardware BIGINT NOT NULL DEFAULT 0",
      "ALTER TABLE runs ADD COLUMN checked_with TEXT NOT NULL DEFAULT ''",
      "CREATE INDEX runs_checked_with ON runs (checked_with)"},
     {}},
    // Projected figures marked (docs/site.md): a settled adaptive window's rate is a projection
    // to the full window; the listings mark the runs' single-stream and best-total figures that are.
    {9,
     "projected figures: which listed figures are projections of a settled adaptive window",
     {"ALTER TABLE runs ADD COLUMN projected_figures BIGINT NOT NULL DEFAULT 0"},
     {},
     &mark_projected_figures},
    // Users at a speed (docs/site.md): each run's users at the site's speed floors per context,
    // for the listings' column and filter.
    {10,
     "users at a speed: each run's users at the site's speed floors per context, backfilled from its stored result",
     {"CREATE TABLE IF NOT EXISTS run_capacity (run_id TEXT NOT NULL, context BIGINT NOT NULL, floor_tok_s DOUBLE PRECISION NOT NULL,"
      " users BIGINT NOT NULL, basis TEXT NOT NULL, PRIMARY KEY (run_id, context, floor_tok_s))",
      "CREATE INDEX IF NOT EXISTS run_capacity_question ON run_capacity (floor_tok_s, context, users)"},
     {},
     &fill_run_capacity},
    // The retrieval check beside the run (docs/site.md): each run's verdict and the contexts it
    // did not read back, for the listings' badge. Runs stored before with no check keep ''.
    {11,
     "retrieval check beside the run: each run's verdict and failed contexts, backfilled from its stored result",
     {"ALTER TABLE runs ADD COLUMN retrieval TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE runs ADD COLUMN retrieval_failed TEXT NOT NULL DEFAULT ''"},
     {},
     &fill_retrieval_standing},
};

#undef SM_PROFILE_COLUMN
#undef SM_PROFILE_MENTIONED

#undef SM_LISTING_INDEXES
#undef SM_PROFILE_RANKING_INDEXES

constexpr std::string_view kCreateMigrationsTable =
    "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL, "
    "applied_at TEXT NOT NULL)";
constexpr std::string_view kSelectVersion = "SELECT COALESCE(MAX(version), 0) FROM schema_migrations";
constexpr std::string_view kInsertVersion =
    "INSERT INTO schema_migrations (version, description, applied_at) VALUES ($1, $2, $3)";

Result<int64_t> migrate_in_transaction(SqlConnection& c, std::string_view applied_at) {
  if (auto ok = c.lock_for_migration(); !ok) return std::unexpected(ok.error());
  if (auto ok = c.execute(kCreateMigrationsTable, {}); !ok) return std::unexpected(ok.error());
  auto rows = c.query(kSelectVersion, {});
  if (!rows) return std::unexpected(rows.error());
  int64_t current = rows->empty() ? 0 : rows->front().integer(0);
  if (current > latest_schema_version())
    return fail(ErrorCode::Unsupported,
                fmt::format("the database has schema version {}, newer than this build's {}: upgrade speedmatrix",
                            current, latest_schema_version()));
  for (const Migration& m : kMigrations) {
    if (m.version <= current) continue;
    const auto& statements =
        c.dialect() == SqlDialect::Postgres && !m.postgres_statements.empty() ? m.postgres_statements : m.statements;
    for (std::string_view sql : statements)
      if (auto ok = c.execute(sql, {}); !ok)
        return fail(ok.error().code, fmt::format("migration {} ({}): {}", m.version, m.description, ok.error().message));
    if (m.rewrite)
      if (auto ok = m.rewrite(c); !ok)
        return fail(ok.error().code, fmt::format("migration {} ({}): {}", m.version, m.description, ok.error().message));
    const std::array<SqlParam, 3> params = {m.version, std::string(m.description), std::string(applied_at)};
    if (auto ok = c.execute(kInsertVersion, params); !ok) return std::unexpected(ok.error());
    current = m.version;
  }
  return current;
}

}  // namespace

namespace {

// Pages through every stored run (200 at a time, by run id) and calls `each` with the run's id,
// its JSON and the result read from it; runs that are not JSON, or not a result this build reads,
// are passed over. An error from `each` stops it.
template <class F>
Result<void> for_each_stored_result(SqlConnection& c, F each) {
  constexpr std::string_view kPage = "SELECT run_id, result_json FROM runs WHERE run_id > $1 ORDER BY run_id LIMIT 200";
  std::string after;
  while (true) {
    const std::array<SqlParam, 1> page_params = {after};
    auto rows = c.query(kPage, page_params);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return {};
    for (const auto& row : *rows) {
      after = row.text(0);
      auto document = nlohmann::json::parse(row.text(1), nullptr, false);
      if (document.is_discarded()) continue;  // not JSON (never stored so): left as it is
      auto result = result_from_json(document);
      if (!result) continue;  // not a result this build reads
      if (auto ok = each(after, document, *result); !ok) return ok;
    }
  }
}

}  // namespace

Result<void> redact_stored_results(SqlConnection& c) {
  constexpr std::string_view kUpdate =
      "UPDATE runs SET result_json = $2, content_sha256 = $3, model = $4, engine_version = $5, submitted_by = $6"
      " WHERE run_id = $1";
  return for_each_stored_result(c, [&](const std::string& run_id, nlohmann::json& document,
                                       RunResult& result) -> Result<void> {
    if (!redact_result_document(document, result)) return {};  // clean
    const RunSummary summary = summarize_run(result);
    const std::string text = document.dump();
    const std::array<SqlParam, 6> params = {run_id, text, sha256_hex(text), summary.model, summary.engine_version,
                                            summary.submitted_by};
    if (auto ok = c.execute(kUpdate, params); !ok) return std::unexpected(ok.error());
    return {};
  });
}

Result<void> mark_projected_figures(SqlConnection& c) {
  constexpr std::string_view kUpdate = "UPDATE runs SET projected_figures = $2 WHERE run_id = $1";
  return for_each_stored_result(c, [&](const std::string& run_id, nlohmann::json&, RunResult& result) -> Result<void> {
    const int64_t bits = projected_figures(summarize_run(result));
    if (bits == 0) return {};
    const std::array<SqlParam, 2> params = {run_id, bits};
    if (auto ok = c.execute(kUpdate, params); !ok) return std::unexpected(ok.error());
    return {};
  });
}

Result<void> insert_capacity(SqlConnection& c, const std::string& run_id, std::span<const CapacityPoint> points) {
  for (const CapacityPoint& p : points) {
    const std::array<SqlParam, 5> params = {run_id, p.context, p.floor_tok_s, p.users, p.basis};
    if (auto ok = c.execute(sql::kInsertCapacity, params); !ok) return std::unexpected(ok.error());
  }
  return {};
}

Result<void> fill_run_capacity(SqlConnection& c) {
  return for_each_stored_result(c, [&](const std::string& run_id, nlohmann::json&, RunResult& result) -> Result<void> {
    return insert_capacity(c, run_id, summarize_run(result).capacity);
  });
}

Result<void> fill_retrieval_standing(SqlConnection& c) {
  constexpr std::string_view kUpdate = "UPDATE runs SET retrieval = $2, retrieval_failed = $3 WHERE run_id = $1";
  return for_each_stored_result(c, [&](const std::string& run_id, nlohmann::json&, RunResult& result) -> Result<void> {
    if (result.retrieval.empty()) return {};
    RunSummary s;
    retrieval_standing(result, s);
    const std::array<SqlParam, 3> params = {run_id, s.retrieval, context_list_text(s.retrieval_failed_contexts)};
    if (auto ok = c.execute(kUpdate, params); !ok) return std::unexpected(ok.error());
    return {};
  });
}

std::span<const Migration> migrations() { return kMigrations; }

int64_t latest_schema_version() { return kMigrations.back().version; }

Result<int64_t> migrate(SqlConnection& connection, std::string_view applied_at) {
  if (auto ok = connection.begin_write(); !ok) return std::unexpected(ok.error());
  auto version = migrate_in_transaction(connection, applied_at);
  if (!version) {
    connection.rollback();
    return version;
  }
  if (auto ok = connection.commit(); !ok) return std::unexpected(ok.error());
  return version;
}

}  // namespace sm::store
