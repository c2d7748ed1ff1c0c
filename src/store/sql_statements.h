#pragma once
// Every statement the store runs after migrations, as constant text with numbered parameters
// ($1, $2, ...) that SQLite and PostgreSQL both accept. Nothing is ever spliced into them:
// filters that may be empty are written `($1 = '' OR gpu = $1)`, and the order of a listing is
// a CASE on a numeric parameter, so one constant statement serves every request.
#include <string_view>

namespace sm::store::sql {

// The RunSummary columns, in the order read_summary() (sql_store.cc) reads them.
#define SM_RUN_SUMMARY_COLUMNS                                                                      \
  "run_id, kind, gpu, model, engine, engine_version, quantization, submitted_by, started_at, "     \
  "uploaded_at, token_id, single_stream_tok_s, single_stream_context, best_total_tok_s, "          \
  "best_total_context, best_total_concurrency, prefill_32k_tok_s, valid_cells, decode_cells, "                 \
  "best_tokens_per_joule, best_tokens_per_joule_context, best_tokens_per_joule_concurrency, gpu_telemetry, "   \
  "throttle_worst, throttled_cells"

// The filter of listings: $1 gpu, $2 model, $3 engine, $4 quantization, $5 kind ('' = any);
// $6 a gpu to leave out ('' = none: the unknown-hardware group is left out of rankings);
// $7 1 = only runs with a tokens-per-joule figure (the efficiency ranking), 0 = any.
#define SM_RUN_FILTER                                                                               \
  " WHERE ($1 = '' OR gpu = $1) AND ($2 = '' OR model = $2) AND ($3 = '' OR engine = $3)"          \
  " AND ($4 = '' OR quantization = $4) AND ($5 = '' OR kind = $5) AND ($6 = '' OR gpu <> $6)"      \
  " AND ($7 = 0 OR best_tokens_per_joule IS NOT NULL)"

/// $1..$25: the RunSummary columns; $26 content_sha256; $27 result_json.
inline constexpr std::string_view kInsertRun =
    "INSERT INTO runs (" SM_RUN_SUMMARY_COLUMNS ", content_sha256, result_json) VALUES "
    "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, "
    "$24, $25, $26, $27) ON CONFLICT (run_id) DO NOTHING";

/// $1 run_id.
inline constexpr std::string_view kSelectRunHash = "SELECT content_sha256 FROM runs WHERE run_id = $1";
/// $1 run_id.
inline constexpr std::string_view kSelectRunJson = "SELECT result_json FROM runs WHERE run_id = $1";
/// $1 run_id.
inline constexpr std::string_view kSelectRunSummary =
    "SELECT " SM_RUN_SUMMARY_COLUMNS " FROM runs WHERE run_id = $1";

/// Filter $1..$7; $8 order (0 newest, 1 single stream, 2 best total, 3 prefill 32K, 4 tokens per
/// joule); $9 limit; $10 offset. Metric orders put runs without the number last (`IS NULL` sorts
/// false first in both dialects).
inline constexpr std::string_view kListRuns =
    "SELECT " SM_RUN_SUMMARY_COLUMNS " FROM runs" SM_RUN_FILTER
    " ORDER BY (CASE WHEN $8 = 1 THEN single_stream_tok_s WHEN $8 = 2 THEN best_total_tok_s"
    " WHEN $8 = 3 THEN prefill_32k_tok_s WHEN $8 = 4 THEN best_tokens_per_joule ELSE 0 END) IS NULL,"
    " (CASE WHEN $8 = 1 THEN single_stream_tok_s WHEN $8 = 2 THEN best_total_tok_s"
    " WHEN $8 = 3 THEN prefill_32k_tok_s WHEN $8 = 4 THEN best_tokens_per_joule ELSE 0 END) DESC,"
    " uploaded_at DESC, run_id DESC LIMIT $9 OFFSET $10";

/// Filter $1..$7.
inline constexpr std::string_view kCountRuns = "SELECT COUNT(*) FROM runs" SM_RUN_FILTER;

/// Per GPU; $1 the unknown-hardware group, which is no GPU and is left out.
inline constexpr std::string_view kHardwareSummary =
    "SELECT gpu, COUNT(*), COUNT(DISTINCT model), MAX(single_stream_tok_s), MAX(best_total_tok_s), "
    "MAX(prefill_32k_tok_s), MAX(uploaded_at), MAX(best_tokens_per_joule) FROM runs WHERE gpu <> $1 GROUP BY gpu";

/// Per model; $1 the unknown-hardware group, not counted as a kind of hardware.
inline constexpr std::string_view kModelSummary =
    "SELECT model, COUNT(*), COUNT(DISTINCT NULLIF(gpu, $1)), MAX(single_stream_tok_s), MAX(best_total_tok_s), "
    "MAX(prefill_32k_tok_s), MAX(uploaded_at), MAX(best_tokens_per_joule) FROM runs GROUP BY model";

/// (column, value) pairs of the distinct filter values.
inline constexpr std::string_view kFilterValues =
    "SELECT 'gpu', gpu FROM runs GROUP BY gpu"
    " UNION ALL SELECT 'model', model FROM runs GROUP BY model"
    " UNION ALL SELECT 'engine', engine FROM runs GROUP BY engine"
    " UNION ALL SELECT 'quantization', quantization FROM runs GROUP BY quantization"
    " UNION ALL SELECT 'kind', kind FROM runs GROUP BY kind";

/// $1 token_id, $2 name, $3 token_sha256, $4 created_at.
inline constexpr std::string_view kInsertToken =
    "INSERT INTO tokens (token_id, name, token_sha256, created_at) VALUES ($1, $2, $3, $4)";
/// $1 token_sha256.
inline constexpr std::string_view kFindToken =
    "SELECT token_id, name, created_at FROM tokens WHERE token_sha256 = $1 AND revoked_at IS NULL";
/// $1 token_id or name; $2 revoked_at.
inline constexpr std::string_view kRevokeToken =
    "UPDATE tokens SET revoked_at = $2 WHERE (token_id = $1 OR name = $1) AND revoked_at IS NULL";
inline constexpr std::string_view kListTokens =
    "SELECT t.token_id, t.name, t.created_at, t.revoked_at,"
    " (SELECT COUNT(*) FROM runs r WHERE r.token_id = t.token_id) FROM tokens t"
    " ORDER BY t.created_at, t.token_id";

#undef SM_RUN_FILTER

}  // namespace sm::store::sql
