#include "store/sql_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/clock.h"
#include "core/units.h"
#include "store/migrations.h"
#include "store/sort_keys.h"
#include "store/sql_statements.h"

namespace sm::store {

namespace {

SqlParam text_or_null(const std::string& s) {
  if (s.empty()) return nullptr;
  return s;
}

template <class T>
SqlParam opt(const std::optional<T>& v) {
  if (!v) return nullptr;
  return *v;
}

// How many columns SM_RUN_SUMMARY_COLUMNS has (read_summary reads 0 .. this - 1).
constexpr size_t kSummaryColumnCount = 40;

// Reads the columns of SM_RUN_SUMMARY_COLUMNS.
RunSummary read_summary(const SqlRow& r) {
  RunSummary s;
  s.run_id = r.text(0);
  s.kind = r.text(1);
  s.gpu = r.text(2);
  s.model = r.text(3);
  s.engine = r.text(4);
  s.engine_version = r.text(5);
  s.quantization = r.text(6);
  s.submitted_by = r.text(7);
  s.started_at = r.text(8);
  s.uploaded_at = r.text(9);
  s.token_id = r.text(10);
  s.single_stream_tok_s = r.number(11);
  s.single_stream_context = r.optional_integer(12);
  s.best_total_tok_s = r.number(13);
  s.best_total_context = r.optional_integer(14);
  s.best_total_concurrency = r.optional_integer(15);
  s.prefill_32k_tok_s = r.number(16);
  s.valid_cells = r.integer(17);
  s.decode_cells = r.integer(18);
  s.best_tokens_per_joule = r.number(19);
  s.best_tokens_per_joule_context = r.optional_integer(20);
  s.best_tokens_per_joule_concurrency = r.optional_integer(21);
  s.gpu_telemetry = r.text(22);
  s.throttle_worst = r.text(23);
  s.throttled_cells = r.optional_integer(24);
  s.calc_gpu = r.text(25);
  s.calc_gpu_count = r.integer(26);
  s.calc_model = r.text(27);
  s.calc_engine = r.text(28);
  s.implausible = r.text(29);
  s.synthetic_model = r.integer(30) != 0;
  s.hidden = r.integer(31) != 0;
  s.profile = r.text(32);
  s.gpu_reported = r.text(33);
  s.model_reported = r.text(34);
  s.unverified_hardware = r.integer(35) != 0;
  s.checked_with = r.text(36);
  const int64_t projected = r.integer(37);
  s.single_stream_projected = (projected & kProjectedSingleStream) != 0;
  s.best_total_projected = (projected & kProjectedBestTotal) != 0;
  s.retrieval = r.text(38);
  s.retrieval_failed_contexts = parse_token_list(r.text(39)).value_or(std::vector<int64_t>{});
  return s;
}

std::array<SqlParam, 43> insert_params(const RunRecord& rec) {
  const RunSummary& s = rec.summary;
  return {s.run_id,
          s.kind,
          s.gpu,
          s.model,
          s.engine,
          s.engine_version,
          s.quantization,
          s.submitted_by,
          s.started_at,
          s.uploaded_at,
          text_or_null(s.token_id),
          opt(s.single_stream_tok_s),
          opt(s.single_stream_context),
          opt(s.best_total_tok_s),
          opt(s.best_total_context),
          opt(s.best_total_concurrency),
          opt(s.prefill_32k_tok_s),
          s.valid_cells,
          s.decode_cells,
          opt(s.best_tokens_per_joule),
          opt(s.best_tokens_per_joule_context),
          opt(s.best_tokens_per_joule_concurrency),
          s.gpu_telemetry,
          s.throttle_worst,
          opt(s.throttled_cells),
          s.calc_gpu,
          s.calc_gpu_count,
          s.calc_model,
          s.calc_engine,
          s.implausible,
          int64_t{s.synthetic_model ? 1 : 0},
          int64_t{s.hidden ? 1 : 0},
          s.profile,
          s.gpu_reported,
          s.model_reported,
          int64_t{s.unverified_hardware ? 1 : 0},
          s.checked_with,
          projected_figures(s),
          s.retrieval,
          context_list_text(s.retrieval_failed_contexts),
          rec.content_sha256,
          rec.result_json,
          text_or_null(rec.measurements_sha256)};
}

std::array<SqlParam, 14> filter_params(const RunFilter& f) {
  return {f.gpu, f.model, f.engine, f.quantization, f.kind,
          f.known_hardware_only ? std::string(kUnknownHardwareGroup) : std::string(),
          int64_t{f.with_tokens_per_joule_only ? 1 : 0}, int64_t{f.unflagged_only ? 1 : 0},
          int64_t{f.include_hidden ? 1 : 0}, f.profile, f.other_than_profile, f.users_floor_tok_s, f.users_context,
          f.min_users};
}

int64_t order_code(RunOrder order) {
  switch (order) {
    case RunOrder::Newest: return 0;
    case RunOrder::SingleStream: return 1;
    case RunOrder::BestTotal: return 2;
    case RunOrder::Prefill32K: return 3;
    case RunOrder::TokensPerJoule: return 4;
  }
  return 0;
}

// The metric an order sorts by, as the row has it (none for newest, or when the run lacks it).
std::optional<double> order_metric(const RunSummary& s, RunOrder order) {
  switch (order) {
    case RunOrder::Newest: return std::nullopt;
    case RunOrder::SingleStream: return s.single_stream_tok_s;
    case RunOrder::BestTotal: return s.best_total_tok_s;
    case RunOrder::Prefill32K: return s.prefill_32k_tok_s;
    case RunOrder::TokensPerJoule: return s.best_tokens_per_joule;
  }
  return std::nullopt;
}

// Inserts one run inside the caller's transaction.
Result<PutStatus> put_one(SqlConnection& c, const RunRecord& rec) {
  auto params = insert_params(rec);
  auto inserted = c.execute(sql::kInsertRun, params);
  if (!inserted) return std::unexpected(inserted.error());
  if (*inserted > 0) {
    if (auto ok = insert_capacity(c, rec.summary.run_id, rec.summary.capacity); !ok) return std::unexpected(ok.error());
    return PutStatus::Created;
  }
  const std::array<SqlParam, 1> id = {rec.summary.run_id};
  auto rows = c.query(sql::kSelectRunHash, id);
  if (!rows) return std::unexpected(rows.error());
  if (!rows->empty()) return rows->front().text(0) == rec.content_sha256 ? PutStatus::Existing : PutStatus::Conflict;
  // Not the id: the measurements hash, the other unique column, is taken.
  if (!rec.measurements_sha256.empty()) return PutStatus::Duplicate;
  return fail(ErrorCode::Internal, "run " + rec.summary.run_id + " neither inserted nor found");
}

std::string now_iso() {
  char buf[32];
  return std::string(format_iso8601_utc(wall_clock_unix_ms(), buf));
}

}  // namespace

Result<std::unique_ptr<SqlStore>> SqlStore::open(std::string backend, ConnectionPool::Factory factory, int pool_size) {
  std::unique_ptr<SqlStore> store(new SqlStore(std::move(backend), std::move(factory), pool_size));
  auto c = store->pool_.acquire();
  if (!c) return std::unexpected(c.error());
  if (auto v = migrate(**c, now_iso()); !v) return std::unexpected(v.error());
  return store;
}

Result<int64_t> SqlStore::schema_version() {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  auto rows = (*c)->query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", {});
  if (!rows) return std::unexpected(rows.error());
  return rows->empty() ? 0 : rows->front().integer(0);
}

Result<PutStatus> SqlStore::put_run(const RunRecord& record) {
  auto statuses = put_runs({record});
  if (!statuses) return std::unexpected(statuses.error());
  return statuses->front();
}

Result<std::vector<PutStatus>> SqlStore::put_runs(const std::vector<RunRecord>& records) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  if (auto ok = (*c)->begin_write(); !ok) return std::unexpected(ok.error());
  std::vector<PutStatus> statuses;
  statuses.reserve(records.size());
  for (const RunRecord& rec : records) {
    auto s = put_one(**c, rec);
    if (!s) {
      (*c)->rollback();
      return std::unexpected(s.error());
    }
    statuses.push_back(*s);
  }
  const bool created = std::find(statuses.begin(), statuses.end(), PutStatus::Created) != statuses.end();
  if (auto ok = commit_write(**c, created); !ok) return std::unexpected(ok.error());
  return statuses;
}

Result<std::optional<std::string>> SqlStore::get_run_json(std::string_view run_id) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  const std::array<SqlParam, 1> id = {std::string(run_id)};
  auto rows = (*c)->query(sql::kSelectRunJson, id);
  if (!rows) return std::unexpected(rows.error());
  if (rows->empty()) return std::optional<std::string>();
  return std::optional<std::string>(rows->front().text(0));
}

Result<std::optional<RunSummary>> SqlStore::get_run_summary(std::string_view run_id) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  const std::array<SqlParam, 1> id = {std::string(run_id)};
  auto rows = (*c)->query(sql::kSelectRunSummary, id);
  if (!rows) return std::unexpected(rows.error());
  if (rows->empty()) return std::optional<RunSummary>();
  return std::optional<RunSummary>(read_summary(rows->front()));
}

Result<RunPage> SqlStore::list_runs(const RunFilter& filter, RunOrder order, const PageRequest& page) {
  if (page.cursor && page.cursor->order != order)
    return fail(ErrorCode::InvalidArgument, "cursor: it belongs to another sort order; follow the page's own links");
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  const auto f = filter_params(filter);
  const int64_t limit = std::clamp<int64_t>(page.limit, 1, kMaxPageLimit);
  // One row more than the page shows tells whether there is a page beyond it.
  auto fetch = [&](sql::PageDirection direction, int64_t offset,
                   const PageCursor* at) -> Result<std::vector<SqlRow>> {
    const std::array<SqlParam, 19> params = {
        f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], f[13], limit + 1, offset,
        at && at->key ? *at->key : kNoFigureKey, at ? at->uploaded_at : std::string(), at ? at->run_id : std::string()};
    return (*c)->query(sql::list_runs_statement(static_cast<int>(order_code(order)), direction), params);
  };
  RunPage out;
  Result<std::vector<SqlRow>> rows = std::vector<SqlRow>{};
  bool more_ahead = false;   // rows before this page
  bool more_behind = false;  // rows after it
  if (page.cursor && page.cursor->before) {
    rows = fetch(sql::PageDirection::Before, 0, &*page.cursor);
    if (!rows) return std::unexpected(rows.error());
    if (static_cast<int64_t>(rows->size()) > limit) {
      rows->pop_back();  // the farthest from the cursor: proof of a page before this one
      std::reverse(rows->begin(), rows->end());
      more_ahead = true;
      more_behind = true;
      out.position = std::max<int64_t>(1, page.cursor->position - limit);
    } else {
      // Back at the top: show the first page whole.
      rows = fetch(sql::PageDirection::First, 0, nullptr);
      if (!rows) return std::unexpected(rows.error());
      more_behind = static_cast<int64_t>(rows->size()) > limit;
      if (more_behind) rows->pop_back();
    }
  } else if (page.cursor) {
    rows = fetch(sql::PageDirection::After, 0, &*page.cursor);
    if (!rows) return std::unexpected(rows.error());
    more_ahead = true;
    more_behind = static_cast<int64_t>(rows->size()) > limit;
    if (more_behind) rows->pop_back();
    out.position = page.cursor->position;
  } else {
    out.position = std::max<int64_t>(page.offset, 0);
    rows = fetch(sql::PageDirection::First, out.position, nullptr);
    if (!rows) return std::unexpected(rows.error());
    more_ahead = out.position > 0;
    more_behind = static_cast<int64_t>(rows->size()) > limit;
    if (more_behind) rows->pop_back();
  }
  auto count = (*c)->query(sql::kCountRuns, f);
  if (!count) return std::unexpected(count.error());
  out.runs.reserve(rows->size());
  for (const auto& r : *rows) {
    out.runs.push_back(read_summary(r));
    out.runs.back().users_at = r.optional_integer(kSummaryColumnCount);
    out.runs.back().users_at_basis = r.text(kSummaryColumnCount + 1);
  }
  out.total = count->empty() ? 0 : count->front().integer(0);
  auto cursor_at = [&](const RunSummary& s, bool before, int64_t position) {
    PageCursor k;
    k.before = before;
    k.order = order;
    k.position = position;
    k.key = order_metric(s, order);
    k.uploaded_at = s.uploaded_at;
    k.run_id = s.run_id;
    return k;
  };
  if (!out.runs.empty()) {
    if (more_behind) out.next = cursor_at(out.runs.back(), false, out.position + static_cast<int64_t>(out.runs.size()));
    if (more_ahead) out.previous = cursor_at(out.runs.front(), true, out.position);
  }
  return out;
}

Result<std::vector<GroupSummary>> SqlStore::groups(std::string_view statement, std::string_view kind) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  const std::array<SqlParam, 3> unknown = {std::string(kUnknownHardwareGroup), std::string(kind),
                                           std::string(kCurrentStandardProfile)};
  auto rows = (*c)->query(statement, unknown);
  if (!rows) return std::unexpected(rows.error());
  std::vector<GroupSummary> out;
  for (const auto& r : *rows) {
    GroupSummary g;
    g.name = r.text(0);
    g.runs = r.integer(1);
    g.distinct_other = r.integer(2);
    g.best_single_stream_tok_s = r.number(3);
    g.best_total_tok_s = r.number(4);
    g.best_prefill_32k_tok_s = r.number(5);
    g.last_uploaded_at = r.text(6);
    g.best_tokens_per_joule = r.number(7);
    out.push_back(std::move(g));
  }
  // Sorted here, by bytes, so both backends list in the same order whatever their collation.
  std::sort(out.begin(), out.end(), [](const GroupSummary& a, const GroupSummary& b) { return a.name < b.name; });
  return out;
}

Result<std::vector<GroupSummary>> SqlStore::hardware_summary(std::string_view kind) {
  return groups(sql::kHardwareSummary, kind);
}

Result<std::vector<GroupSummary>> SqlStore::model_summary(std::string_view kind) {
  return groups(sql::kModelSummary, kind);
}

Result<std::vector<RunSummary>> SqlStore::list_runs_for_setup(const SetupKey& key, int64_t limit) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  const std::array<SqlParam, 5> params = {key.gpu, key.gpu_count, key.model, key.engine,
                                          std::clamp<int64_t>(limit, 1, kMaxPageLimit)};
  auto rows = (*c)->query(sql::kListRunsForSetup, params);
  if (!rows) return std::unexpected(rows.error());
  std::vector<RunSummary> out;
  for (const auto& r : *rows) out.push_back(read_summary(r));
  return out;
}

Result<RunPage> SqlStore::list_runs_for_moderation(const ModerationFilter& filter, int64_t limit) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  const std::array<SqlParam, 5> params = {filter.token_id, filter.kind, filter.flag, std::string(kUnknownHardwareGroup),
                                          std::clamp<int64_t>(limit, 1, kMaxPageLimit)};
  auto rows = (*c)->query(sql::kListRunsForModeration, params);
  if (!rows) return std::unexpected(rows.error());
  auto count = (*c)->query(sql::kCountRunsForModeration, std::span(params).first(4));
  if (!count) return std::unexpected(count.error());
  RunPage out;
  for (const auto& r : *rows) out.runs.push_back(read_summary(r));
  out.total = count->empty() ? 0 : count->front().integer(0);
  return out;
}

Result<std::optional<std::string>> SqlStore::find_run_by_measurements(std::string_view measurements_sha256) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  const std::array<SqlParam, 1> params = {std::string(measurements_sha256)};
  auto rows = (*c)->query(sql::kSelectRunByMeasurements, params);
  if (!rows) return std::unexpected(rows.error());
  if (rows->empty()) return std::optional<std::string>();
  return std::optional<std::string>(rows->front().text(0));
}

Result<int64_t> SqlStore::write_one(std::string_view statement, std::span<const SqlParam> params) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  if (auto ok = (*c)->begin_write(); !ok) return std::unexpected(ok.error());
  auto n = (*c)->execute(statement, params);
  if (!n) {
    (*c)->rollback();
    return n;
  }
  if (auto ok = commit_write(**c, *n > 0); !ok) return std::unexpected(ok.error());
  return n;
}

Result<void> SqlStore::commit_write(SqlConnection& c, bool changed) {
  const bool sqlite = c.dialect() == SqlDialect::Sqlite;
  if (changed && sqlite) {
    if (auto ok = c.execute(sql::kSqliteBumpGeneration, {}); !ok) {
      c.rollback();
      return std::unexpected(ok.error());
    }
  }
  if (auto ok = c.commit(); !ok) {
    c.rollback();
    return ok;
  }
  if (changed && !sqlite) bump_generation_after_commit(c);
  return {};
}

void SqlStore::bump_generation_after_commit(SqlConnection& c) {
  // The write is committed and stays whatever this answers; should it fail, the caches of the
  // processes on this database catch up at the next change.
  (void)c.query(sql::kPostgresBumpGeneration, {});
}

Result<int64_t> SqlStore::generation() {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  auto rows = (*c)->query((*c)->dialect() == SqlDialect::Sqlite ? sql::kSqliteGeneration : sql::kPostgresGeneration, {});
  if (!rows) return std::unexpected(rows.error());
  return rows->empty() ? 0 : rows->front().integer(0);
}

Result<RateDecision> SqlStore::take_rate_token(std::string_view key, double per_s, double burst, int64_t now_ms) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  const double per_ms = per_s / 1000.0;
  const std::array<SqlParam, 4> params = {std::string(key), burst, now_ms, per_ms};
  if (auto ok = (*c)->begin_write(); !ok) return std::unexpected(ok.error());
  auto fail_with = [&](const Error& e) -> Result<RateDecision> {
    (*c)->rollback();
    return std::unexpected(e);
  };
  // A bucket's loss in a database crash only forgives a few requests: no need to wait for the
  // log flush (PostgreSQL; SQLite's NORMAL sync does not wait at commit anyway).
  if ((*c)->dialect() == SqlDialect::Postgres)
    if (auto ok = (*c)->execute("SET LOCAL synchronous_commit TO OFF", {}); !ok) return fail_with(ok.error());
  if (auto ok = (*c)->execute(sql::kInsertRateBucket, std::span(params).first(3)); !ok) return fail_with(ok.error());
  auto taken = (*c)->execute(sql::kTakeRateToken, params);
  if (!taken) return fail_with(taken.error());
  RateDecision out;
  if (*taken == 0) {
    auto rows = (*c)->query(sql::kSelectRateBucket, std::span(params).first(1));
    if (!rows) return fail_with(rows.error());
    const double tokens = rows->empty() ? 0 : rows->front().number(0).value_or(0);
    const int64_t updated_ms = rows->empty() ? now_ms : rows->front().integer(1);
    const double now_tokens = std::min(burst, tokens + static_cast<double>(std::max<int64_t>(0, now_ms - updated_ms)) * per_ms);
    out.allowed = false;
    out.retry_after_s = std::max<int64_t>(1, static_cast<int64_t>(std::ceil((1 - now_tokens) / per_s)));
  }
  if (auto ok = (*c)->commit(); !ok) return fail_with(ok.error());
  return out;
}

Result<int64_t> SqlStore::set_hidden(std::string_view run_id, bool hidden) {
  const std::array<SqlParam, 2> params = {std::string(run_id), int64_t{hidden ? 1 : 0}};
  return write_one(sql::kSetHidden, params);
}

Result<std::vector<StoredRun>> SqlStore::runs_checked_otherwise(std::string_view checked_with,
                                                                std::string_view after_run_id, int64_t limit) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  const std::array<SqlParam, 3> params = {std::string(checked_with), std::string(after_run_id),
                                          std::clamp<int64_t>(limit, 1, kMaxPageLimit)};
  auto rows = (*c)->query(sql::kRunsCheckedOtherwise, params);
  if (!rows) return std::unexpected(rows.error());
  std::vector<StoredRun> out;
  for (const auto& r : *rows) out.push_back({read_summary(r), r.text(kSummaryColumnCount)});
  return out;
}

Result<int64_t> SqlStore::update_checks(const std::vector<RunSummary>& summaries) {
  if (summaries.empty()) return int64_t{0};
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  if (auto ok = (*c)->begin_write(); !ok) return std::unexpected(ok.error());
  int64_t changed = 0;
  for (const RunSummary& s : summaries) {
    const std::array<SqlParam, 14> params = {s.run_id,
                                             s.gpu,
                                             s.model,
                                             s.quantization,
                                             s.gpu_reported,
                                             s.model_reported,
                                             s.calc_gpu,
                                             s.calc_gpu_count,
                                             s.calc_model,
                                             s.calc_engine,
                                             s.implausible,
                                             int64_t{s.synthetic_model ? 1 : 0},
                                             int64_t{s.unverified_hardware ? 1 : 0},
                                             s.checked_with};
    auto n = (*c)->execute(sql::kUpdateChecks, params);
    if (!n) {
      (*c)->rollback();
      return n;
    }
    changed += *n;
  }
  if (auto ok = commit_write(**c, changed > 0); !ok) return std::unexpected(ok.error());
  return changed;
}

Result<int64_t> SqlStore::delete_run(std::string_view run_id) {
  const std::array<SqlParam, 1> params = {std::string(run_id)};
  if (auto gone = write_one(sql::kDeleteCapacity, params); !gone) return gone;
  return write_one(sql::kDeleteRun, params);
}

Result<FilterValues> SqlStore::filter_values() {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  auto rows = (*c)->query(sql::kFilterValues, {});
  if (!rows) return std::unexpected(rows.error());
  FilterValues v;
  for (const auto& r : *rows) {
    const std::string& column = r.text(0);
    const std::string& value = r.text(1);
    if (value.empty()) continue;
    if (column == "gpu") v.gpus.push_back(value);
    else if (column == "model") v.models.push_back(value);
    else if (column == "engine") v.engines.push_back(value);
    else if (column == "quantization") v.quantizations.push_back(value);
    else if (column == "kind") v.kinds.push_back(value);
  }
  for (auto* list : {&v.gpus, &v.models, &v.engines, &v.quantizations, &v.kinds}) std::sort(list->begin(), list->end());
  return v;
}

Result<void> SqlStore::create_token(const TokenInfo& token, std::string_view token_sha256_hex) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  if (auto ok = (*c)->begin_write(); !ok) return ok;
  const std::array<SqlParam, 4> params = {token.token_id, token.name, std::string(token_sha256_hex), token.created_at};
  if (auto ok = (*c)->execute(sql::kInsertToken, params); !ok) {
    (*c)->rollback();
    return std::unexpected(ok.error());
  }
  if (auto ok = (*c)->commit(); !ok) {
    (*c)->rollback();
    return ok;
  }
  return {};
}

Result<std::optional<TokenInfo>> SqlStore::find_token(std::string_view token_sha256_hex) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  const std::array<SqlParam, 1> params = {std::string(token_sha256_hex)};
  auto rows = (*c)->query(sql::kFindToken, params);
  if (!rows) return std::unexpected(rows.error());
  if (rows->empty()) return std::optional<TokenInfo>();
  TokenInfo t;
  t.token_id = rows->front().text(0);
  t.name = rows->front().text(1);
  t.created_at = rows->front().text(2);
  return std::optional<TokenInfo>(std::move(t));
}

Result<int64_t> SqlStore::revoke_token(std::string_view token_id, std::string_view revoked_at) {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  if (auto ok = (*c)->begin_write(); !ok) return std::unexpected(ok.error());
  const std::array<SqlParam, 2> params = {std::string(token_id), std::string(revoked_at)};
  auto n = (*c)->execute(sql::kRevokeToken, params);
  if (!n) {
    (*c)->rollback();
    return n;
  }
  if (auto ok = (*c)->commit(); !ok) {
    (*c)->rollback();
    return std::unexpected(ok.error());
  }
  return n;
}

Result<std::vector<TokenInfo>> SqlStore::list_tokens() {
  auto c = pool_.acquire();
  if (!c) return std::unexpected(c.error());
  auto rows = (*c)->query(sql::kListTokens, {});
  if (!rows) return std::unexpected(rows.error());
  std::vector<TokenInfo> out;
  for (const auto& r : *rows) {
    TokenInfo t;
    t.token_id = r.text(0);
    t.name = r.text(1);
    t.created_at = r.text(2);
    t.revoked_at = r.text(3);
    t.uploads = r.integer(4);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace sm::store
