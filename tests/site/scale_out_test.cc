// Scale-out on one database (issue 15 part 5), on SQLite and (when SPEEDMATRIX_TEST_PG_DSN names a
// server: tests/site/pg_store_test.sh) PostgreSQL: keyset pages walk every run once in every order
// and back; the listing statements are ordered by their indexes (EXPLAIN); the change counter
// moves on writes only and a cache over one store sees another store's upload; the upload rate
// limit is one bucket for every store on the database. Two stores opened on one database stand
// for two `serve` processes (tests/site/scale_out_test.sh runs two real ones).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <set>
#include <thread>

#include "result/result_json.h"
#include "site/rate_limiter.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/cached_store.h"
#include "store/page_cursor.h"
#include "store/postgres_store.h"
#include "store/result_store.h"
#include "store/run_summary.h"
#include "store/sql_statements.h"
#include "store/sqlite_store.h"
#include "support/temp_dir.h"

namespace sm::store {
namespace {

constexpr RunOrder kOrders[] = {RunOrder::Newest, RunOrder::SingleStream, RunOrder::BestTotal, RunOrder::Prefill32K,
                                RunOrder::TokensPerJoule};

std::string pg_dsn() {
  const char* dsn = std::getenv("SPEEDMATRIX_TEST_PG_DSN");
  return dsn ? dsn : "";
}

RunRecord record_of(const RunResult& r, const std::string& uploaded_at) {
  RunRecord rec;
  rec.summary = summarize_run(r);
  rec.summary.uploaded_at = uploaded_at;
  rec.result_json = to_json(r).dump();
  rec.content_sha256 = site::sha256_hex(rec.result_json);
  rec.measurements_sha256 = site::sha256_hex(r.run_id);
  return rec;
}

std::vector<std::string> ids_of(const RunPage& p) {
  std::vector<std::string> out;
  for (const auto& r : p.runs) out.push_back(r.run_id);
  return out;
}

// A store that forwards to another and holds every list_runs call until released: what a
// listing under way looks like to the requests that arrive meanwhile.
class GatedStore final : public ResultStore {
 public:
  explicit GatedStore(ResultStore& inner) : inner_(inner) {}
  std::atomic<int> list_calls{0};
  std::atomic<bool> open{false};

  std::string_view backend() const override { return inner_.backend(); }
  Result<int64_t> schema_version() override { return inner_.schema_version(); }
  Result<PutStatus> put_run(const RunRecord& r) override { return inner_.put_run(r); }
  Result<std::vector<PutStatus>> put_runs(const std::vector<RunRecord>& r) override { return inner_.put_runs(r); }
  Result<std::optional<std::string>> get_run_json(std::string_view id) override { return inner_.get_run_json(id); }
  Result<std::optional<RunSummary>> get_run_summary(std::string_view id) override { return inner_.get_run_summary(id); }
  Result<RunPage> list_runs(const RunFilter& f, RunOrder o, const PageRequest& p) override {
    ++list_calls;
    while (!open.load()) std::this_thread::yield();
    return inner_.list_runs(f, o, p);
  }
  Result<std::vector<GroupSummary>> hardware_summary(std::string_view k) override { return inner_.hardware_summary(k); }
  Result<std::vector<GroupSummary>> model_summary(std::string_view k) override { return inner_.model_summary(k); }
  Result<FilterValues> filter_values() override { return inner_.filter_values(); }
  Result<std::vector<RunSummary>> list_runs_for_setup(const SetupKey& k, int64_t n) override {
    return inner_.list_runs_for_setup(k, n);
  }
  Result<RunPage> list_runs_for_moderation(const ModerationFilter& f, int64_t n) override {
    return inner_.list_runs_for_moderation(f, n);
  }
  Result<std::optional<std::string>> find_run_by_measurements(std::string_view h) override {
    return inner_.find_run_by_measurements(h);
  }
  Result<std::vector<StoredRun>> runs_checked_otherwise(std::string_view w, std::string_view after, int64_t n) override {
    return inner_.runs_checked_otherwise(w, after, n);
  }
  Result<int64_t> update_checks(const std::vector<RunSummary>& s) override { return inner_.update_checks(s); }
  Result<int64_t> set_hidden(std::string_view id, bool h) override { return inner_.set_hidden(id, h); }
  Result<int64_t> delete_run(std::string_view id) override { return inner_.delete_run(id); }
  Result<int64_t> generation() override { return inner_.generation(); }
  Result<RateDecision> take_rate_token(std::string_view k, double r, double b, int64_t t) override {
    return inner_.take_rate_token(k, r, b, t);
  }
  Result<void> create_token(const TokenInfo& t, std::string_view h) override { return inner_.create_token(t, h); }
  Result<std::optional<TokenInfo>> find_token(std::string_view h) override { return inner_.find_token(h); }
  Result<int64_t> revoke_token(std::string_view k, std::string_view t) override { return inner_.revoke_token(k, t); }
  Result<std::vector<TokenInfo>> list_tokens() override { return inner_.list_tokens(); }

 private:
  ResultStore& inner_;
};

class ScaleOutStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres") {
      if (pg_dsn().empty()) GTEST_SKIP() << "SPEEDMATRIX_TEST_PG_DSN not set (tests/site/pg_store_test.sh sets it)";
      auto c = open_postgres_connection(pg_dsn());
      ASSERT_TRUE(c) << c.error().message;
      for (const char* t : {"runs", "run_capacity", "tokens", "schema_migrations", "rate_buckets"})
        ASSERT_TRUE((*c)->execute(std::string("DROP TABLE IF EXISTS ") + t + " CASCADE", {}));
      ASSERT_TRUE((*c)->execute("DROP SEQUENCE IF EXISTS site_generation_seq", {}));
    }
    a_ = open();
    b_ = open();
  }

  std::string dsn() const { return GetParam() == "postgres" ? pg_dsn() : "sqlite:" + dir_.file("scale.db"); }

  std::unique_ptr<ResultStore> open() {
    auto s = open_store(dsn(), {.pool_size = 2});
    EXPECT_TRUE(s) << s.error().message;
    return s ? std::move(*s) : nullptr;
  }

  Result<std::unique_ptr<SqlConnection>> connection() {
    if (GetParam() == "postgres") return open_postgres_connection(pg_dsn());
    return open_sqlite_connection(dir_.file("scale.db"), SqliteSync::Normal);
  }

  // 23 runs: ties in every metric (several runs share a figure, two share an upload time), runs
  // without a 32K prefill or a tokens-per-joule figure, three kinds.
  void seed() {
    std::vector<RunRecord> records;
    for (int i = 0; i < 23; ++i) {
      const std::string id = fmt::format("run-{:02}", i);
      const char* kind = i % 5 == 0 ? "simulated" : i % 7 == 0 ? "predicted" : "measured";
      RunResult r = test::site_result(id, fmt::format("M{}", i % 3), "NVIDIA GeForce RTX 3090", 100.0 + 10 * (i % 4),
                                      i % 3 == 0 ? std::nullopt : std::optional<double>(8000.0 + 100 * (i % 2)), kind);
      if (i % 2 == 0) test::add_gpu_telemetry(r, 2.0 + (i % 3));
      records.push_back(record_of(r, fmt::format("2026-12-03T10:00:{:02}.000Z", i / 2 * 2)));
    }
    auto put = a_->put_runs(records);
    ASSERT_TRUE(put) << put.error().message;
  }

  test::TempDir dir_;
  std::unique_ptr<ResultStore> a_;
  std::unique_ptr<ResultStore> b_;
};

TEST_P(ScaleOutStoreTest, KeysetPagesWalkEveryRunOnceInEveryOrderAndBack) {
  seed();
  for (const RunFilter& filter : {RunFilter{}, RunFilter{.kind = "measured"}, RunFilter{.model = "M1"}}) {
    for (RunOrder order : kOrders) {
      SCOPED_TRACE(fmt::format("order {} kind '{}' model '{}'", static_cast<int>(order), filter.kind, filter.model));
      auto all = a_->list_runs(filter, order, {.limit = 500});
      ASSERT_TRUE(all) << all.error().message;
      EXPECT_FALSE(all->next);
      EXPECT_FALSE(all->previous);
      const std::vector<std::string> expected = ids_of(*all);
      ASSERT_FALSE(expected.empty());

      // Forward by cursors, 4 at a time: the same runs in the same order as one long page.
      std::vector<std::string> walked;
      std::vector<RunPage> pages;
      PageRequest request{.limit = 4};
      for (int guard = 0; guard < 20; ++guard) {
        auto page = a_->list_runs(filter, order, request);
        ASSERT_TRUE(page) << page.error().message;
        EXPECT_EQ(page->position, static_cast<int64_t>(walked.size()));
        EXPECT_EQ(page->total, all->total);
        EXPECT_EQ(page->previous.has_value(), !walked.empty());
        for (auto& id : ids_of(*page)) walked.push_back(id);
        pages.push_back(*page);
        if (!page->next) break;
        // The cursor travels as text, as in a link.
        auto cursor = parse_page_cursor(format_page_cursor(*page->next));
        ASSERT_TRUE(cursor) << cursor.error().message;
        request.cursor = *cursor;
      }
      EXPECT_EQ(walked, expected);

      // Back from the last page by its previous cursors: the same pages.
      for (size_t i = pages.size() - 1; i > 0; --i) {
        ASSERT_TRUE(pages[i].previous);
        auto back = a_->list_runs(filter, order, {.limit = 4, .cursor = *pages[i].previous});
        ASSERT_TRUE(back) << back.error().message;
        EXPECT_EQ(ids_of(*back), ids_of(pages[i - 1])) << "page " << i - 1;
        EXPECT_EQ(back->position, pages[i - 1].position);
      }

      // An old offset link still shows the rows it always did.
      auto by_offset = a_->list_runs(filter, order, {.limit = 4, .offset = 4});
      ASSERT_TRUE(by_offset);
      if (pages.size() > 1) {
        EXPECT_EQ(ids_of(*by_offset), ids_of(pages[1]));
      }
      EXPECT_EQ(by_offset->position, 4);
    }
  }
}

TEST_P(ScaleOutStoreTest, ACursorOfAnotherOrderOrNotACursorIsRefused) {
  seed();
  auto first = a_->list_runs({}, RunOrder::Newest, {.limit = 3});
  ASSERT_TRUE(first && first->next);
  auto wrong = a_->list_runs({}, RunOrder::BestTotal, {.limit = 3, .cursor = *first->next});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::InvalidArgument);
  for (const char* text : {"", "a9~0~0~x~y", "a1~-3~1~x~y", "a1~0~abc~x~y", "c1~0~1~x~y", "a1~0~1~x"})
    EXPECT_FALSE(parse_page_cursor(text)) << text;
  PageCursor c{.before = true, .order = RunOrder::Prefill32K, .position = 50, .key = 8783.25,
               .uploaded_at = "2026-12-03T10:00:00.000Z", .run_id = "a~b.c_d-e"};
  auto back = parse_page_cursor(format_page_cursor(c));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->before);
  EXPECT_EQ(back->order, RunOrder::Prefill32K);
  EXPECT_EQ(back->position, 50);
  EXPECT_EQ(back->key, 8783.25);
  EXPECT_EQ(back->uploaded_at, c.uploaded_at);
  EXPECT_EQ(back->run_id, c.run_id);  // everything after the fourth '~' is the id
}

// Every listing statement is answered by walking an index in order: no sort of the matching rows,
// which is what would make a deep page cost as much as the whole listing.
TEST_P(ScaleOutStoreTest, EveryListingOrderIsServedByAnIndex) {
  seed();
  auto c = connection();
  ASSERT_TRUE(c) << c.error().message;
  const bool pg = GetParam() == "postgres";
  // PostgreSQL picks a sequential scan for 23 rows whatever the indexes: forbid it, and the sort,
  // so the plan says whether an index can give this order at all.
  if (pg) {
    ASSERT_TRUE((*c)->execute("SET enable_seqscan = off", {}));
    ASSERT_TRUE((*c)->execute("SET enable_sort = off", {}));
  }
  struct Case {
    RunOrder order;
    std::string kind;
    std::string gpu;
    std::string index;
    std::string profile = "";  // the ranking's profile (the leaderboard: the current standard's)
    std::string other_than_profile = "";  // the leaderboard's Other runs
  };
  const std::string standard(kCurrentStandardProfile);
  const std::vector<Case> cases = {
      {RunOrder::Newest, "", "", "runs_newest"},
      {RunOrder::SingleStream, "measured", "", pg ? "runs_kind_single_stream" : "runs_single_stream"},
      {RunOrder::BestTotal, "measured", "", pg ? "runs_kind_best_total" : "runs_best_total"},
      {RunOrder::Prefill32K, "", "", "runs_prefill_32k"},
      {RunOrder::TokensPerJoule, "measured", "", pg ? "runs_kind_tokens_per_joule" : "runs_tokens_per_joule"},
      {RunOrder::BestTotal, "measured", "RTX 3090 24GB", pg ? "runs_gpu_best_total" : "runs_best_total"},
      // The leaderboard: one kind and one profile, each order one range of its index (migration 6).
      {RunOrder::SingleStream, "measured", "", pg ? "runs_kind_profile_single_stream" : "runs_single_stream", standard},
      {RunOrder::BestTotal, "measured", "", pg ? "runs_kind_profile_best_total" : "runs_best_total", standard},
      {RunOrder::Prefill32K, "measured", "", pg ? "runs_kind_profile_prefill_32k" : "runs_prefill_32k", standard},
      {RunOrder::TokensPerJoule, "measured", "", pg ? "runs_kind_profile_tokens_per_joule" : "runs_tokens_per_joule",
       standard},
      {RunOrder::Newest, "measured", "", pg ? "runs_kind_newest" : "runs_newest", "", standard},
  };
  for (const Case& k : cases) {
    for (auto direction : {sql::PageDirection::First, sql::PageDirection::After, sql::PageDirection::Before}) {
      const int code = static_cast<int>(k.order);
      // $1-$11 the filter, $12-$14 users at a speed (floor, context, least users: none), $15 limit,
      // $16 offset, $17-$19 the cursor.
      const std::array<SqlParam, 19> params = {k.gpu, std::string(), std::string(), std::string(), k.kind,
                                               std::string(kUnknownHardwareGroup), int64_t{0}, int64_t{1}, int64_t{0},
                                               k.profile, k.other_than_profile, 20.0, int64_t{32768}, int64_t{0},
                                               int64_t{5}, int64_t{0}, 150.0,
                                               std::string("2026-12-03T10:00:10.000Z"), std::string("run-10")};
      const std::string explain = std::string(pg ? "EXPLAIN " : "EXPLAIN QUERY PLAN ") +
                                  std::string(sql::list_runs_statement(code, direction));
      auto rows = (*c)->query(explain, params);
      ASSERT_TRUE(rows) << rows.error().message;
      std::string plan;
      for (const auto& r : *rows) plan += r.text(r.cells.size() - 1) + "\n";
      SCOPED_TRACE(plan);
      EXPECT_NE(plan.find(k.index), std::string::npos) << "order " << code << " does not use " << k.index;
      EXPECT_EQ(plan.find(pg ? "Sort" : "TEMP B-TREE"), std::string::npos) << "the rows are sorted, not read in order";
    }
  }
}

TEST_P(ScaleOutStoreTest, TheChangeCounterMovesOnWritesAndOnlyOnWrites) {
  auto g0 = a_->generation();
  ASSERT_TRUE(g0) << g0.error().message;
  RunRecord rec = record_of(test::site_result("gen-1"), "2026-12-03T10:00:00.000Z");
  ASSERT_EQ(a_->put_run(rec).value(), PutStatus::Created);
  const int64_t g1 = b_->generation().value();  // the other store sees it move
  EXPECT_GT(g1, *g0);
  EXPECT_EQ(a_->put_run(rec).value(), PutStatus::Existing);
  ASSERT_TRUE(a_->list_runs({}, RunOrder::Newest, {}));
  EXPECT_EQ(b_->generation().value(), g1) << "a retry or a read changes nothing";
  EXPECT_EQ(b_->set_hidden("gen-1", true).value(), 1);
  const int64_t g2 = a_->generation().value();
  EXPECT_GT(g2, g1);
  EXPECT_EQ(b_->set_hidden("gen-1", true).value(), 0);
  EXPECT_EQ(a_->generation().value(), g2) << "hiding a hidden run changes nothing";
  EXPECT_EQ(b_->delete_run("gen-1").value(), 1);
  EXPECT_GT(a_->generation().value(), g2);
}

TEST_P(ScaleOutStoreTest, ACacheOverOneStoreSeesWhatAnotherStoreWrote) {
  seed();
  CachedStore cached(*a_, {.max_entries = 16});
  const RunFilter measured{.kind = "measured"};
  auto first = cached.list_runs(measured, RunOrder::SingleStream, {.limit = 5});
  ASSERT_TRUE(first) << first.error().message;
  auto again = cached.list_runs(measured, RunOrder::SingleStream, {.limit = 5});
  ASSERT_TRUE(again);
  EXPECT_EQ(ids_of(*again), ids_of(*first));
  ASSERT_TRUE(cached.hardware_summary("measured"));
  ASSERT_TRUE(cached.hardware_summary("measured"));
  ASSERT_TRUE(cached.filter_values());
  ASSERT_TRUE(cached.filter_values());
  EXPECT_EQ(cached.counters().hits, 3);
  EXPECT_EQ(cached.counters().misses, 3);

  // "Another process" stores the fastest run yet: the cached process shows it at its next read.
  RunRecord fast = record_of(test::site_result("fastest", "M9", "NVIDIA H100", 900.0), "2026-12-03T11:00:00.000Z");
  ASSERT_EQ(b_->put_run(fast).value(), PutStatus::Created);
  auto after = cached.list_runs(measured, RunOrder::SingleStream, {.limit = 5});
  ASSERT_TRUE(after);
  ASSERT_FALSE(after->runs.empty());
  EXPECT_EQ(after->runs.front().run_id, "fastest");
  EXPECT_EQ(after->total, first->total + 1);
  auto values = cached.filter_values();
  ASSERT_TRUE(values);
  EXPECT_NE(std::find(values->models.begin(), values->models.end(), "M9"), values->models.end());
  EXPECT_EQ(cached.counters().invalidations, 1);

  // A moderator hides it through the other store: gone from the cached listing at once.
  ASSERT_EQ(b_->set_hidden("fastest", true).value(), 1);
  auto hidden = cached.list_runs(measured, RunOrder::SingleStream, {.limit = 5});
  ASSERT_TRUE(hidden);
  EXPECT_EQ(ids_of(*hidden), ids_of(*first));
  EXPECT_EQ(cached.counters().invalidations, 2);
}

TEST_P(ScaleOutStoreTest, RequestsMissingTogetherWaitForOneComputation) {
  seed();
  GatedStore gated(*a_);
  CachedStore cached(gated, {});
  constexpr int kRequests = 4;
  std::vector<std::vector<std::string>> answers(kRequests);
  std::vector<std::thread> threads;
  for (int i = 0; i < kRequests; ++i)
    threads.emplace_back([&, i] {
      auto page = cached.list_runs({}, RunOrder::BestTotal, {.limit = 5});
      if (page) answers[i] = ids_of(*page);
    });
  // Hold the first computation until the three other requests are waiting for it (or, were
  // they not to wait, until all four are computing).
  while (cached.counters().joined < kRequests - 1 && gated.list_calls.load() < kRequests) std::this_thread::yield();
  gated.open = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(gated.list_calls.load(), 1) << "one query for four requests";
  EXPECT_EQ(cached.counters().misses, 1);
  EXPECT_EQ(cached.counters().joined, kRequests - 1);
  ASSERT_EQ(answers[0].size(), 5u);
  for (const auto& a : answers) EXPECT_EQ(a, answers[0]);
}

TEST_P(ScaleOutStoreTest, AnUploadBucketIsSharedByEveryStoreOnTheDatabase) {
  const double per_s = 1.0;  // one a second, bursts of 3
  int64_t now_ms = 1'780'000'000'000;
  int allowed = 0;
  RateDecision last;
  for (int i = 0; i < 6; ++i) {
    ResultStore& s = i % 2 == 0 ? *a_ : *b_;  // alternate "processes"
    auto d = s.take_rate_token("tk_shared", per_s, 3, now_ms);
    ASSERT_TRUE(d) << d.error().message;
    allowed += d->allowed ? 1 : 0;
    last = *d;
  }
  EXPECT_EQ(allowed, 3) << "a burst of 3 is 3 in all, not 3 per process";
  EXPECT_FALSE(last.allowed);
  EXPECT_EQ(last.retry_after_s, 1);
  EXPECT_TRUE(a_->take_rate_token("tk_other", per_s, 3, now_ms).value().allowed) << "buckets are per key";
  now_ms += 1000;  // one second refills one request
  EXPECT_TRUE(b_->take_rate_token("tk_shared", per_s, 3, now_ms).value().allowed);
  EXPECT_FALSE(a_->take_rate_token("tk_shared", per_s, 3, now_ms).value().allowed);
  // A clock behind the bucket's (another machine's skew) refills nothing and breaks nothing.
  EXPECT_FALSE(a_->take_rate_token("tk_shared", per_s, 3, now_ms - 60'000).value().allowed);
  now_ms += 2000;
  EXPECT_TRUE(a_->take_rate_token("tk_shared", per_s, 3, now_ms).value().allowed);
}

TEST_P(ScaleOutStoreTest, TwoSitesOnOneDatabaseShareTheUploadLimitAndSeeEachOthersUploads) {
  CachedStore cached_a(*a_, {});
  CachedStore cached_b(*b_, {});
  auto token = site::generate_upload_token();
  ASSERT_TRUE(token);
  ASSERT_TRUE(a_->create_token({token->token_id, "scale", "2026-12-03T09:00:00Z", "", 0}, token->sha256_hex));
  ManualClock clock(int64_t{1'780'000'000} * kNsPerS);
  const site::SiteConfig config{.upload_rate_per_min = 2, .shared_upload_limit = true};
  auto site_a = site::Site::create(cached_a, config, clock);
  auto site_b = site::Site::create(cached_b, config, clock);
  ASSERT_TRUE(site_a && site_b);
  auto upload = [&](site::Site& site, const std::string& id) {
    site::SiteRequest r;
    r.method = site::HttpMethod::Post;
    r.path = "/api/v1/runs";
    r.body = to_json(test::site_result(id)).dump();
    r.authorization = "Bearer " + token->secret;
    return site.handle(r);
  };
  auto get = [](site::Site& site, const std::string& path, const std::string& query) {
    site::SiteRequest r;
    r.method = site::HttpMethod::Get;
    r.path = path;
    r.query = query;
    return site.handle(r);
  };
  // B's leaderboard, cached while empty.
  EXPECT_EQ(nlohmann::json::parse(get(**site_b, "/api/v1/leaderboard", "").body)["total"], 0);
  EXPECT_EQ(upload(**site_a, "shared-1").status, 201);
  EXPECT_EQ(nlohmann::json::parse(get(**site_b, "/api/v1/leaderboard", "").body)["total"], 1)
      << "B's cache saw A's upload";
  EXPECT_EQ(upload(**site_b, "shared-2").status, 201);
  auto third = upload(**site_a, "shared-3");
  EXPECT_EQ(third.status, 429) << "the token's 2 a minute are spent, across both sites";
  clock.advance_ns(30 * kNsPerS);  // half a minute: one more
  EXPECT_EQ(upload(**site_b, "shared-3").status, 201);
  EXPECT_EQ(upload(**site_a, "shared-4").status, 429);
}

INSTANTIATE_TEST_SUITE_P(Backends, ScaleOutStoreTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param == "postgres" ? std::string("Postgres") : std::string("Sqlite"); });

}  // namespace
}  // namespace sm::store
