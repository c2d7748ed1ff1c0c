#pragma once
// The sort keys of the run listings, as SQL text shared by the listing statements
// (sql_statements.cc) and the indexes that serve them (migration 5): a database uses an index on
// an expression only for that very expression, so both are written from these macros.
//
// A metric order puts the highest first and the runs without the number last: the key is the
// metric with NULL replaced by -1e300, below any figure a run can have (the upload checks refuse
// negative rates), so one descending index scan gives "highest first, none last" in SQLite and
// PostgreSQL alike (their NULLs sort at opposite ends). Ties are broken by the upload time, then
// the run id (unique), so every order is total and a keyset cursor names one place in it.

#define SM_NO_FIGURE "-1e300"
#define SM_KEY_SINGLE_STREAM "COALESCE(single_stream_tok_s, " SM_NO_FIGURE ")"
#define SM_KEY_BEST_TOTAL "COALESCE(best_total_tok_s, " SM_NO_FIGURE ")"
#define SM_KEY_PREFILL_32K "COALESCE(prefill_32k_tok_s, " SM_NO_FIGURE ")"
#define SM_KEY_TOKENS_PER_JOULE "COALESCE(best_tokens_per_joule, " SM_NO_FIGURE ")"

namespace sm::store {

/// The value a run without the figure has in a metric key (SM_NO_FIGURE).
inline constexpr double kNoFigureKey = -1e300;

}  // namespace sm::store
