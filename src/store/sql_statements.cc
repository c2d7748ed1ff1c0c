#include "store/sql_statements.h"

#include <array>
#include <string>

#include "store/sort_keys.h"

namespace sm::store::sql {

namespace {

// The metric key of each order code (0 newest has none).
constexpr std::array<std::string_view, 5> kOrderKeys = {"", SM_KEY_SINGLE_STREAM, SM_KEY_BEST_TOTAL, SM_KEY_PREFILL_32K,
                                                   SM_KEY_TOKENS_PER_JOULE};

std::string build_list_statement(int order, PageDirection direction) {
  const std::string_view key = kOrderKeys[static_cast<size_t>(order)];
  const std::string columns = key.empty() ? "uploaded_at, run_id" : std::string(key) + ", uploaded_at, run_id";
  const std::string values = key.empty() ? "$18, $19" : "$17, $18, $19";
  const bool reversed = direction == PageDirection::Before;
  const std::string_view dir = reversed ? " ASC" : " DESC";
  std::string sql = "SELECT " + std::string(kRunSummaryColumns) + ", " + std::string(kUsersAtColumns) + " FROM runs" +
                    std::string(kRunFilter);
  // Row values compare column by column, like the order: one range of the index.
  if (direction != PageDirection::First) sql += " AND (" + columns + ") " + (reversed ? ">" : "<") + " (" + values + ")";
  sql += " ORDER BY ";
  if (!key.empty()) sql += std::string(key) + std::string(dir) + ", ";
  sql += "uploaded_at" + std::string(dir) + ", run_id" + std::string(dir) + " LIMIT $15 OFFSET $16";
  return sql;
}

}  // namespace

std::string_view list_runs_statement(int order_code, PageDirection direction) {
  // Built once from constant pieces; no value ever enters the text (they are bound: $1..$19).
  static const auto statements = [] {
    std::array<std::array<std::string, 3>, 5> out;
    for (int o = 0; o < 5; ++o)
      for (int d = 0; d < 3; ++d) out[o][d] = build_list_statement(o, static_cast<PageDirection>(d));
    return out;
  }();
  if (order_code < 0 || order_code > 4) order_code = 0;
  return statements[static_cast<size_t>(order_code)][static_cast<size_t>(direction)];
}

}  // namespace sm::store::sql
