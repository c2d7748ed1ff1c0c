#pragma once
// Every statement the store runs after migrations, as constant text with numbered parameters
// ($1, $2, ...) that SQLite and PostgreSQL both accept. Nothing is ever spliced into them:
// filters that may be empty are written `($1 = '' OR gpu = $1)`, so one statement serves every
// filter. A listing has one statement per order and page direction (list_runs_statement, built
// once from constant pieces), each ordered by its own index.
#include <string_view>

namespace sm::store::sql {

// The RunSummary columns, in the order read_summary() (sql_store.cc) reads them.
#define SM_RUN_SUMMARY_COLUMNS                                                                      \
  "run_id, kind, gpu, model, engine, engine_version, quantization, submitted_by, started_at, "     \
  "uploaded_at, token_id, single_stream_tok_s, single_stream_context, best_total_tok_s, "          \
  "best_total_context, best_total_concurrency, prefill_32k_tok_s, valid_cells, decode_cells, "                 \
  "best_tokens_per_joule, best_tokens_per_joule_context, best_tokens_per_joule_concurrency, gpu_telemetry, "   \
  "throttle_worst, throttled_cells, calc_gpu, calc_gpu_count, calc_model, calc_engine, implausible, "          \
  "synthetic_model, hidden, profile, gpu_reported, model_reported, unverified_hardware, checked_with, "           \
  "projected_figures, retrieval, retrieval_failed"

// The filter of listings: $1 gpu, $2 model, $3 engine, $4 quantization, $5 kind ('' = any);
// $6 a gpu to leave out ('' = none: the unknown-hardware group is left out of rankings);
// $7 1 = only runs with a tokens-per-joule figure (the efficiency ranking), 0 = any;
// $8 1 = leave out flagged runs (implausible, synthetic model: default rankings), 0 = keep;
// $9 1 = hidden runs too (moderation), 0 = visible runs only;
// $10 a profile to keep ('' = any: a ranking keeps the current standard's);
// $11 a profile to leave out ('' = none: the leaderboard's Other runs leave out the standard's);
// $12 a speed floor (tok/s) and $13 a context: with $14 > 0, only runs serving at least $14 users
// there (the run_capacity table; 0 = any).
#define SM_RUN_FILTER                                                                               \
  " WHERE ($1 = '' OR gpu = $1) AND ($2 = '' OR model = $2) AND ($3 = '' OR engine = $3)"          \
  " AND ($4 = '' OR quantization = $4) AND ($5 = '' OR kind = $5) AND ($6 = '' OR gpu <> $6)"      \
  " AND ($7 = 0 OR best_tokens_per_joule IS NOT NULL)"                                              \
  " AND ($8 = 0 OR (implausible = '' AND synthetic_model = 0 AND unverified_hardware = 0))"         \
  " AND ($9 = 1 OR hidden = 0)"                                                                     \
  " AND ($10 = '' OR profile = $10) AND ($11 = '' OR profile <> $11)"                                \
  " AND ($14 = 0 OR EXISTS (SELECT 1 FROM run_capacity k WHERE k.run_id = runs.run_id"                \
  " AND k.floor_tok_s = $12 AND k.context = $13 AND k.users >= $14))"

/// The RunSummary columns and the listing filter, for the statements built in sql_statements.cc.
inline constexpr std::string_view kRunSummaryColumns = SM_RUN_SUMMARY_COLUMNS;
/// A listing's two columns after the RunSummary's: users and basis at the filter's floor $12 and context $13.
inline constexpr std::string_view kUsersAtColumns =
    "(SELECT k.users FROM run_capacity k WHERE k.run_id = runs.run_id AND k.floor_tok_s = $12 AND k.context = $13),"
    " (SELECT k.basis FROM run_capacity k WHERE k.run_id = runs.run_id AND k.floor_tok_s = $12 AND k.context = $13)";
/// $1 run_id, $2 context, $3 floor_tok_s, $4 users, $5 basis: one of a run's users at a speed.
inline constexpr std::string_view kInsertCapacity =
    "INSERT INTO run_capacity (run_id, context, floor_tok_s, users, basis) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING";
/// $1 run_id.
inline constexpr std::string_view kDeleteCapacity = "DELETE FROM run_capacity WHERE run_id = $1";
inline constexpr std::string_view kRunFilter = SM_RUN_FILTER;

/// $1..$40: the RunSummary columns; $41 content_sha256; $42 result_json; $43 measurements_sha256
/// (NULL: not checked). Nothing is inserted when the run id or the measurements hash is taken.
inline constexpr std::string_view kInsertRun =
    "INSERT INTO runs (" SM_RUN_SUMMARY_COLUMNS ", content_sha256, result_json, measurements_sha256) VALUES "
    "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, "
    "$24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, $39, $40, $41, $42, $43) "
    "ON CONFLICT DO NOTHING";

/// $1 measurements_sha256.
inline constexpr std::string_view kSelectRunByMeasurements =
    "SELECT run_id FROM runs WHERE measurements_sha256 = $1";

/// $1 run_id.
inline constexpr std::string_view kSelectRunHash = "SELECT content_sha256 FROM runs WHERE run_id = $1";
/// $1 run_id; a hidden run is not returned.
inline constexpr std::string_view kSelectRunJson = "SELECT result_json FROM runs WHERE run_id = $1 AND hidden = 0";
/// $1 run_id.
inline constexpr std::string_view kSelectRunSummary =
    "SELECT " SM_RUN_SUMMARY_COLUMNS " FROM runs WHERE run_id = $1";

/// How a listing statement pages (list_runs_statement).
enum class PageDirection {
  First,   ///< from the top of the order, skipping $16 rows (an offset: 0, or an old link's)
  After,   ///< the rows after the key ($17 metric, $18 uploaded_at, $19 run_id), in the order
  Before,  ///< the rows before that key, nearest first (the order reversed; the caller turns them round)
};

/// The listing statement of one order and direction: the RunSummary columns, then kUsersAtColumns.
/// Filter $1..$14 (SM_RUN_FILTER); $15 limit; $16 offset; $17..$19 the cursor's key (a metric
/// order's key is SM_KEY_*, sort_keys.h; Newest has none and ignores $17). Each is ordered by its index of migration 5 (a ranking of one kind
/// and profile: of migration 6), so a page costs the same at any depth.
std::string_view list_runs_statement(int order_code, PageDirection direction);

/// Filter $1..$14.
inline constexpr std::string_view kCountRuns = "SELECT COUNT(*) FROM runs" SM_RUN_FILTER;

// A group's best figure counts only the runs a ranking would: not flagged (implausible, synthetic
// model) and of the ranked profile ($3: the current standard's), so a quick run's figure is no best.
#define SM_RANKED(column)                                                                           \
  "MAX(CASE WHEN implausible = '' AND synthetic_model = 0 AND unverified_hardware = 0 AND profile = $3 THEN " column \
  " END)"
#define SM_GROUP_FIGURES                                                                            \
  SM_RANKED("single_stream_tok_s") ", " SM_RANKED("best_total_tok_s") ", " SM_RANKED("prefill_32k_tok_s") \
  ", MAX(uploaded_at), " SM_RANKED("best_tokens_per_joule")

/// Per GPU; $1 the unknown-hardware group, which is no GPU and is left out; $2 kind ('' = any);
/// $3 the profile whose runs give the best figures (every run is counted).
inline constexpr std::string_view kHardwareSummary =
    "SELECT gpu, COUNT(*), COUNT(DISTINCT model), " SM_GROUP_FIGURES
    " FROM runs WHERE gpu <> $1 AND hidden = 0 AND ($2 = '' OR kind = $2) GROUP BY gpu";

/// Per model; $1 the unknown-hardware group, not counted as a kind of hardware; $2 kind ('' = any);
/// $3 the profile whose runs give the best figures.
inline constexpr std::string_view kModelSummary =
    "SELECT model, COUNT(*), COUNT(DISTINCT NULLIF(gpu, $1)), " SM_GROUP_FIGURES
    " FROM runs WHERE hidden = 0 AND ($2 = '' OR kind = $2) GROUP BY model";

/// (column, value) pairs of the distinct filter values of the visible runs.
inline constexpr std::string_view kFilterValues =
    "SELECT 'gpu', gpu FROM runs WHERE hidden = 0 GROUP BY gpu"
    " UNION ALL SELECT 'model', model FROM runs WHERE hidden = 0 GROUP BY model"
    " UNION ALL SELECT 'engine', engine FROM runs WHERE hidden = 0 GROUP BY engine"
    " UNION ALL SELECT 'quantization', quantization FROM runs WHERE hidden = 0 GROUP BY quantization"
    " UNION ALL SELECT 'kind', kind FROM runs WHERE hidden = 0 GROUP BY kind";

/// $1 calc_gpu, $2 calc_gpu_count, $3 calc_model, $4 calc_engine, $5 limit: visible measured runs.
inline constexpr std::string_view kListRunsForSetup =
    "SELECT " SM_RUN_SUMMARY_COLUMNS " FROM runs WHERE calc_gpu = $1 AND calc_gpu_count = $2 AND calc_model = $3"
    " AND calc_engine = $4 AND kind = 'measured' AND hidden = 0 ORDER BY uploaded_at DESC, run_id DESC LIMIT $5";

// The moderation filter: $1 token_id, $2 kind (each '' = any), $3 a flag (ModerationFilter::flag,
// '' = any), $4 the unknown-hardware group.
#define SM_MODERATION_FILTER                                                                        \
  " WHERE ($1 = '' OR token_id = $1) AND ($2 = '' OR kind = $2) AND ($3 = ''"                       \
  " OR ($3 = 'implausible' AND implausible <> '') OR ($3 = 'synthetic_model' AND synthetic_model = 1)" \
  " OR ($3 = 'hidden' AND hidden = 1) OR ($3 = 'unknown_hardware' AND gpu = $4)"                    \
  " OR ($3 = 'unverified_hardware' AND unverified_hardware = 1)"                                    \
  " OR ($3 = 'none' AND implausible = '' AND synthetic_model = 0 AND unverified_hardware = 0 AND hidden = 0" \
  " AND gpu <> $4))"
/// The moderation filter $1..$4; $5 limit. Hidden runs too, newest first.
inline constexpr std::string_view kListRunsForModeration =
    "SELECT " SM_RUN_SUMMARY_COLUMNS " FROM runs" SM_MODERATION_FILTER " ORDER BY uploaded_at DESC, run_id DESC LIMIT $5";
/// The moderation filter $1..$4.
inline constexpr std::string_view kCountRunsForModeration = "SELECT COUNT(*) FROM runs" SM_MODERATION_FILTER;

/// $1 checked_with, $2 the last run id of the previous page ('' = from the start), $3 limit.
inline constexpr std::string_view kRunsCheckedOtherwise =
    "SELECT " SM_RUN_SUMMARY_COLUMNS ", result_json FROM runs WHERE checked_with <> $1 AND run_id > $2"
    " ORDER BY run_id LIMIT $3";
/// $1 run_id; $2 gpu, $3 model, $4 quantization, $5 gpu_reported, $6 model_reported, $7 calc_gpu,
/// $8 calc_gpu_count, $9 calc_model, $10 calc_engine, $11 implausible, $12 synthetic_model,
/// $13 unverified_hardware, $14 checked_with.
inline constexpr std::string_view kUpdateChecks =
    "UPDATE runs SET gpu = $2, model = $3, quantization = $4, gpu_reported = $5, model_reported = $6, calc_gpu = $7,"
    " calc_gpu_count = $8, calc_model = $9, calc_engine = $10, implausible = $11, synthetic_model = $12,"
    " unverified_hardware = $13, checked_with = $14 WHERE run_id = $1";

/// $1 run_id, $2 hidden (0 or 1).
inline constexpr std::string_view kSetHidden = "UPDATE runs SET hidden = $2 WHERE run_id = $1 AND hidden <> $2";
/// $1 run_id.
inline constexpr std::string_view kDeleteRun = "DELETE FROM runs WHERE run_id = $1";

/// $1 token_id, $2 name, $3 token_sha256, $4 created_at.
inline constexpr std::string_view kInsertToken =
    "INSERT INTO tokens (token_id, name, token_sha256, created_at) VALUES ($1, $2, $3, $4)";
/// $1 token_sha256.
inline constexpr std::string_view kFindToken =
    "SELECT token_id, name, created_at FROM tokens WHERE token_sha256 = $1 AND revoked_at IS NULL";
/// $1 token_id or name; $2 revoked_at.
inline constexpr std::string_view kRevokeToken =
    "UPDATE tokens SET revoked_at = $2 WHERE token_id = $1 AND revoked_at IS NULL";
inline constexpr std::string_view kListTokens =
    "SELECT t.token_id, t.name, t.created_at, t.revoked_at,"
    " (SELECT COUNT(*) FROM runs r WHERE r.token_id = t.token_id) FROM tokens t"
    " ORDER BY t.created_at, t.token_id";

// The change counter (ResultStore::generation). SQLite: a row, bumped inside the writing
// transaction (SQLite runs one writer at a time anyway). PostgreSQL: a sequence, advanced after
// the writing transaction commits (nextval takes no lock, so concurrent uploads do not queue on
// one row, and readers never see a number whose data is not committed yet).
inline constexpr std::string_view kSqliteGeneration = "SELECT generation FROM site_generation WHERE id = 1";
inline constexpr std::string_view kSqliteBumpGeneration = "UPDATE site_generation SET generation = generation + 1 WHERE id = 1";
/// A fresh sequence reads last_value 1 before its first nextval (is_called false): that is 0.
inline constexpr std::string_view kPostgresGeneration =
    "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM site_generation_seq";
inline constexpr std::string_view kPostgresBumpGeneration = "SELECT nextval('site_generation_seq')";

// A token bucket kept in the store, shared by every process (ResultStore::take_rate_token).
// $1 key, $2 burst (the bucket's size), $3 now (ms since the Unix epoch), $4 refill per ms.
// A bucket starts full; time that runs backwards (clock skew between machines) refills nothing.
#define SM_BUCKET_REFILLED "(tokens + (CASE WHEN $3 > updated_ms THEN $3 - updated_ms ELSE 0 END) * $4)"
inline constexpr std::string_view kInsertRateBucket =
    "INSERT INTO rate_buckets (bucket_key, tokens, updated_ms) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
/// Takes one request when the refilled bucket holds one; changes no row when it does not.
inline constexpr std::string_view kTakeRateToken =
    "UPDATE rate_buckets SET tokens = (CASE WHEN " SM_BUCKET_REFILLED " > $2 THEN $2 ELSE " SM_BUCKET_REFILLED " END) - 1,"
    " updated_ms = (CASE WHEN $3 > updated_ms THEN $3 ELSE updated_ms END)"
    " WHERE bucket_key = $1 AND " SM_BUCKET_REFILLED " >= 1";
/// $1 key: what is left, to say when to retry.
inline constexpr std::string_view kSelectRateBucket = "SELECT tokens, updated_ms FROM rate_buckets WHERE bucket_key = $1";
#undef SM_BUCKET_REFILLED

#undef SM_RUN_FILTER
#undef SM_RANKED
#undef SM_GROUP_FIGURES

}  // namespace sm::store::sql
