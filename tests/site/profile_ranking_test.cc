// Ranked like with like (issue 29 point 6): the leaderboard ranks only runs of the current
// standard profile (kCurrentStandardProfile); quick runs, runs of their own matrix and older
// standards are listed under Other runs (`profile=other`), never ranked. The store's profile
// column and filter on both backends, migration 6 backfilling it from stored results, the API and
// pages (English and Japanese), and what the upload client says of each.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>

#include "result/profile.h"
#include "result/result_json.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/site_server.h"
#include "site/upload_token.h"
#include "store/cached_store.h"
#include "store/migrations.h"
#include "store/postgres_store.h"
#include "store/result_store.h"
#include "store/run_summary.h"
#include "store/sqlite_store.h"
#include "support/temp_dir.h"
#include "upload/ranking_note.h"
#include "upload/upload_client.h"

namespace sm::site {
namespace {

using nlohmann::json;

// A site_result of the given profile ("" = a matrix of its own).
RunResult run_of_profile(const std::string& id, const std::string& profile, double single_tok_s = 180) {
  RunResult r = test::site_result(id, "Model-" + id, "NVIDIA GeForce RTX 3090", single_tok_s);
  r.settings.profile = profile;
  return r;
}

store::RunRecord record_of(const RunResult& r, const std::string& uploaded_at) {
  store::RunRecord rec;
  rec.summary = store::summarize_run(r);
  rec.summary.uploaded_at = uploaded_at;
  rec.result_json = to_json(r).dump();
  rec.content_sha256 = sha256_hex(rec.result_json);
  return rec;
}

std::string ids_of(const store::RunPage& page) {
  std::vector<std::string> ids;
  for (const auto& s : page.runs) ids.push_back(s.run_id);
  std::sort(ids.begin(), ids.end());
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ",") + id;
  return out;
}

TEST(ProfileStanding, OnlyTheCurrentStandardIsRanked) {
  EXPECT_EQ(kCurrentStandardProfile, "standard/1");
  EXPECT_EQ(profile_standing("standard/1"), ProfileStanding::CurrentStandard);
  EXPECT_EQ(profile_standing(""), ProfileStanding::OwnMatrix);
  EXPECT_EQ(profile_standing("quick/1"), ProfileStanding::Quick);
  EXPECT_EQ(profile_standing("quick/7"), ProfileStanding::Quick);
  EXPECT_EQ(profile_standing("standard/0"), ProfileStanding::OtherProfile);
  EXPECT_EQ(profile_standing("standard"), ProfileStanding::OtherProfile);
  EXPECT_EQ(profile_standing("quickish/1"), ProfileStanding::OtherProfile);
  EXPECT_TRUE(is_ranked_profile("standard/1"));
  EXPECT_FALSE(is_ranked_profile("quick/1"));
  EXPECT_EQ(profile_name("standard/1"), "standard");
}

TEST(ProfileStanding, ASummaryNamesTheFirstReasonItIsNotRanked) {
  store::RunSummary s = store::summarize_run(run_of_profile("s", "standard/1"));
  EXPECT_EQ(s.profile, "standard/1");
  EXPECT_TRUE(s.ranked());
  EXPECT_EQ(store::not_ranked_because(s), "");
  s.implausible = "too fast";
  EXPECT_EQ(store::not_ranked_because(s), "implausible");
  s.gpu = std::string(store::kUnknownHardwareGroup);
  EXPECT_EQ(store::not_ranked_because(s), "unknown_hardware");
  s.profile = "quick/1";  // the profile comes first: another matrix is not comparable at all
  EXPECT_EQ(store::not_ranked_because(s), "quick_profile");
  EXPECT_FALSE(s.ranked());
  EXPECT_EQ(store::not_ranked_because(store::summarize_run(run_of_profile("n", ""))), "no_profile");
  EXPECT_EQ(store::not_ranked_because(store::summarize_run(run_of_profile("o", "standard/0"))), "other_profile");
}

// ---- The store, SQLite and PostgreSQL (when SPEEDMATRIX_TEST_PG_DSN names one) ----

class ProfileStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres") {
      const char* pg = std::getenv("SPEEDMATRIX_TEST_PG_DSN");
      if (!pg) GTEST_SKIP() << "SPEEDMATRIX_TEST_PG_DSN not set (tests/site/pg_store_test.sh sets it)";
      dsn_ = pg;
      auto c = store::open_postgres_connection(dsn_);
      ASSERT_TRUE(c) << c.error().message;
      for (const char* t : {"runs", "run_capacity", "tokens", "schema_migrations"})
        ASSERT_TRUE((*c)->execute(std::string("DROP TABLE IF EXISTS ") + t + " CASCADE", {}));
    } else {
      dsn_ = "sqlite:" + dir_.file("results.db");
    }
  }

  void open() {
    store_.reset();
    auto s = store::open_store(dsn_);
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
  }

  Result<std::unique_ptr<store::SqlConnection>> connect() {
    if (GetParam() == "postgres") return store::open_postgres_connection(dsn_);
    return store::open_sqlite_connection(dir_.file("results.db"), store::SqliteSync::Normal);
  }

  test::TempDir dir_;
  std::string dsn_;
  std::unique_ptr<store::ResultStore> store_;
};

TEST_P(ProfileStoreTest, TheProfileRoundTripsAndFiltersKeepOrLeaveItOut) {
  open();
  ASSERT_TRUE(store_->put_run(record_of(run_of_profile("std", "standard/1", 100), "2026-12-03T10:00:00.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(run_of_profile("quick", "quick/1", 900), "2026-12-03T10:00:01.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(run_of_profile("own", "", 800), "2026-12-03T10:00:02.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(run_of_profile("old", "standard/0", 700), "2026-12-03T10:00:03.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(run_of_profile("std2", "standard/1", 200), "2026-12-03T10:00:04.000Z")));

  EXPECT_EQ(store_->get_run_summary("quick").value()->profile, "quick/1");
  EXPECT_EQ(store_->get_run_summary("own").value()->profile, "");
  EXPECT_EQ(store_->get_run_summary("std").value()->profile, "standard/1");

  store::RunFilter ranked;
  ranked.profile = std::string(kCurrentStandardProfile);
  auto board = store_->list_runs(ranked, store::RunOrder::SingleStream, {});
  ASSERT_TRUE(board) << board.error().message;
  ASSERT_EQ(board->runs.size(), 2u);
  EXPECT_EQ(board->runs[0].run_id, "std2");  // ranked among themselves: the faster quick run is not above them
  EXPECT_EQ(board->runs[1].run_id, "std");
  EXPECT_EQ(board->total, 2);

  store::RunFilter others;
  others.other_than_profile = std::string(kCurrentStandardProfile);
  auto rest = store_->list_runs(others, store::RunOrder::Newest, {});
  ASSERT_TRUE(rest) << rest.error().message;
  EXPECT_EQ(ids_of(*rest), "old,own,quick");
  EXPECT_EQ(rest->total, 3);

  // Both filters with another one, and a keyset page inside the ranking.
  ranked.kind = "measured";
  auto first = store_->list_runs(ranked, store::RunOrder::SingleStream, {.limit = 1});
  ASSERT_TRUE(first && first->next);
  auto second = store_->list_runs(ranked, store::RunOrder::SingleStream, {.limit = 1, .cursor = first->next});
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(ids_of(*second), "std");
  EXPECT_FALSE(second->next);
  EXPECT_EQ(store_->list_runs({}, store::RunOrder::Newest, {}).value().total, 5) << "no profile filter: every run";

  // A group counts every run, but its best figures are the ranked runs': the quick run's 900 is no best.
  auto hw = store_->hardware_summary();
  ASSERT_TRUE(hw) << hw.error().message;
  ASSERT_EQ(hw->size(), 1u);
  EXPECT_EQ((*hw)[0].runs, 5);
  EXPECT_EQ((*hw)[0].best_single_stream_tok_s, 200.0);
  auto models = store_->model_summary();
  ASSERT_TRUE(models) << models.error().message;
  for (const auto& g : *models) {
    if (g.name == "Model-quick") {
      EXPECT_FALSE(g.best_single_stream_tok_s) << "a quick run gives its model no best";
    }
    if (g.name == "Model-std2") {
      EXPECT_EQ(g.best_single_stream_tok_s, 200.0);
    }
  }
}

// Each view is its own cached listing: a key without the profile would answer one view for the other.
TEST_P(ProfileStoreTest, TheListingCacheKeepsTheViewsApart) {
  open();
  ASSERT_TRUE(store_->put_run(record_of(run_of_profile("std", "standard/1"), "2026-12-03T10:00:00.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(run_of_profile("quick", "quick/1"), "2026-12-03T10:00:01.000Z")));
  store::CachedStore cached(*store_, {.max_entries = 16});
  store::RunFilter ranked;
  ranked.profile = std::string(kCurrentStandardProfile);
  store::RunFilter others;
  others.other_than_profile = std::string(kCurrentStandardProfile);
  EXPECT_EQ(ids_of(cached.list_runs(ranked, store::RunOrder::Newest, {}).value()), "std");
  EXPECT_EQ(ids_of(cached.list_runs(others, store::RunOrder::Newest, {}).value()), "quick");
  EXPECT_EQ(ids_of(cached.list_runs({}, store::RunOrder::Newest, {}).value()), "quick,std");
  EXPECT_EQ(ids_of(cached.list_runs(ranked, store::RunOrder::Newest, {}).value()), "std");
  EXPECT_EQ(cached.counters().hits, 1);
}

// A database a build with migrations 1-5 made, holding runs uploaded before migration 6: opening it
// adds the column, each old run gets the profile its stored result names (none: ''), every old
// run still reads, and the ranking lists only the standard one.
TEST_P(ProfileStoreTest, MigrationSixBackfillsTheProfileOfOlderRowsFromTheirResults) {
  {
    auto c = connect();
    ASSERT_TRUE(c) << c.error().message;
    store::SqlConnection& db = **c;
    ASSERT_TRUE(db.execute("CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL, "
                           "applied_at TEXT NOT NULL)",
                           {}));
    for (const store::Migration& m : store::migrations()) {
      if (m.version > 5) break;
      const auto& statements = db.dialect() == store::SqlDialect::Postgres && !m.postgres_statements.empty()
                                   ? m.postgres_statements
                                   : m.statements;
      for (std::string_view sql : statements) ASSERT_TRUE(db.execute(sql, {})) << sql;
      const std::array<store::SqlParam, 3> row = {m.version, std::string(m.description),
                                                  std::string("2026-11-01T00:00:00Z")};
      ASSERT_TRUE(db.execute("INSERT INTO schema_migrations (version, description, applied_at) VALUES ($1, $2, $3)", row));
    }
    auto insert_old = [&](const std::string& id, const std::string& result_json, double single_tok_s) {
      const std::array<store::SqlParam, 21> old_run = {
          id, std::string("measured"), std::string("RTX 3090 24GB"), std::string("M1"), std::string("vllm"),
          std::string("0.32.0"), std::string("AWQ 4-bit"), std::string(""), std::string("2026-11-01T00:00:00Z"),
          std::string("2026-11-01T00:00:01.000Z"), nullptr, single_tok_s, int64_t{0}, single_tok_s * 1.8, int64_t{0},
          int64_t{2}, 8783.0, int64_t{4}, int64_t{4}, std::string("hash-") + id, result_json};
      auto ok = db.execute(
          "INSERT INTO runs (run_id, kind, gpu, model, engine, engine_version, quantization, submitted_by, started_at, "
          "uploaded_at, token_id, single_stream_tok_s, single_stream_context, best_total_tok_s, best_total_context, "
          "best_total_concurrency, prefill_32k_tok_s, valid_cells, decode_cells, content_sha256, result_json) VALUES "
          "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)",
          old_run);
      ASSERT_TRUE(ok) << ok.error().message;
    };
    insert_old("old-std", to_json(run_of_profile("old-std", "standard/1")).dump(), 100);
    insert_old("old-quick", to_json(run_of_profile("old-quick", "quick/1")).dump(), 900);
    insert_old("old-none", to_json(run_of_profile("old-none", "")).dump(), 800);  // before profiles: no key
    // A key of that name that is not a string: read as none, not a failed migration.
    insert_old("old-odd", R"({"run_id":"old-odd","settings":{"profile":7}})", 700);
  }
  open();
  EXPECT_EQ(store_->schema_version().value_or(0), store::latest_schema_version());
  EXPECT_GE(store::latest_schema_version(), 6);
  for (auto [id, profile] : {std::pair{"old-std", "standard/1"}, {"old-quick", "quick/1"}, {"old-none", ""}, {"old-odd", ""}}) {
    auto s = store_->get_run_summary(id);
    ASSERT_TRUE(s && *s) << id;
    EXPECT_EQ((*s)->profile, profile) << id;
    EXPECT_EQ((*s)->model, "M1") << id << ": the columns before it still read";
    auto text = store_->get_run_json(id);
    ASSERT_TRUE(text && *text) << id;
  }
  store::RunFilter ranked;
  ranked.profile = std::string(kCurrentStandardProfile);
  ranked.kind = "measured";
  EXPECT_EQ(ids_of(store_->list_runs(ranked, store::RunOrder::SingleStream, {}).value()), "old-std");
  store::RunFilter others;
  others.other_than_profile = std::string(kCurrentStandardProfile);
  EXPECT_EQ(ids_of(store_->list_runs(others, store::RunOrder::Newest, {}).value()), "old-none,old-odd,old-quick");

  open();  // a second open applies nothing and changes nothing
  auto c = connect();
  ASSERT_TRUE(c);
  auto rows = (*c)->query("SELECT COUNT(*) FROM schema_migrations WHERE version = 6", {});
  ASSERT_TRUE(rows && !rows->empty());
  EXPECT_EQ(rows->front().integer(0), 1);
  EXPECT_EQ(store_->get_run_summary("old-quick").value()->profile, "quick/1");
}

INSTANTIATE_TEST_SUITE_P(Backends, ProfileStoreTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param == "postgres" ? std::string("Postgres") : std::string("Sqlite"); });

// ---- The site: uploads, API and pages ----

class ProfileSiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    auto t = generate_upload_token();
    ASSERT_TRUE(t);
    token_ = t->secret;
    ASSERT_TRUE(store_->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
    SiteConfig config;
    config.upload_rate_per_min = 0;
    config.log_line = [](const std::string&) {};
    auto site = Site::create(*store_, config, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
    // The quick and own-matrix runs are faster: were they ranked, they would be first.
    answers_["std"] = upload(run_of_profile("std", "standard/1", 180));
    answers_["quick"] = upload(run_of_profile("quick", "quick/1", 900));
    answers_["own"] = upload(run_of_profile("own", "", 800));
  }

  json upload(const RunResult& r) {
    SiteRequest req;
    req.method = HttpMethod::Post;
    req.path = "/api/v1/runs";
    req.authorization = "Bearer " + token_;
    req.body = to_json(r).dump();
    SiteResponse resp = site_->handle(req);
    EXPECT_EQ(resp.status, 201) << resp.body;
    return json::parse(resp.body);
  }

  SiteResponse get(const std::string& target) {
    SiteRequest r;
    size_t q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = target.substr(q + 1);
    return site_->handle(r);
  }

  std::vector<std::string> ids(const std::string& target) {
    SiteResponse r = get(target);
    EXPECT_EQ(r.status, 200) << target << ": " << r.body;
    std::vector<std::string> out;
    const json body = json::parse(r.body);  // kept: the loop reads into it
    for (const auto& run : body["runs"]) out.push_back(run["run_id"]);
    std::sort(out.begin(), out.end());
    return out;
  }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
  std::string token_;
  std::map<std::string, json> answers_;
};

TEST_F(ProfileSiteTest, TheUploadAnswerSaysWhereTheRunStands) {
  EXPECT_EQ(answers_["std"]["ranked"], true);
  EXPECT_EQ(answers_["std"]["profile"], "standard/1");
  EXPECT_EQ(answers_["std"]["standard_profile"], "standard/1");
  EXPECT_EQ(answers_["std"]["leaderboard_view"], "standard");
  EXPECT_FALSE(answers_["std"].contains("not_ranked_because"));
  EXPECT_EQ(answers_["quick"]["ranked"], false);
  EXPECT_EQ(answers_["quick"]["not_ranked_because"], "quick_profile");
  EXPECT_EQ(answers_["quick"]["leaderboard_view"], "other");
  EXPECT_EQ(answers_["own"]["ranked"], false);
  EXPECT_EQ(answers_["own"]["not_ranked_because"], "no_profile");
  EXPECT_EQ(answers_["own"]["profile"], "");
}

TEST_F(ProfileSiteTest, TheLeaderboardApiRanksOnlyTheStandardProfileAndListsTheRestApart) {
  SiteResponse r = get("/api/v1/leaderboard");
  ASSERT_EQ(r.status, 200) << r.body;
  json board = json::parse(r.body);
  EXPECT_EQ(board["view"], "standard");
  EXPECT_EQ(board["ranked"], true);
  EXPECT_EQ(board["standard_profile"], "standard/1");
  ASSERT_EQ(board["runs"].size(), 1u);
  EXPECT_EQ(board["runs"][0]["run_id"], "std");
  EXPECT_EQ(board["runs"][0]["rank"], 1);
  EXPECT_EQ(board["runs"][0]["profile"], "standard/1");
  EXPECT_EQ(board["total"], 1);
  EXPECT_EQ(ids("/api/v1/leaderboard?profile=standard"), std::vector<std::string>{"std"});
  // Never mixed in, whatever the kind or the order.
  EXPECT_EQ(ids("/api/v1/leaderboard?kind=all&sort=best_total"), std::vector<std::string>{"std"});
  EXPECT_EQ(ids("/api/v1/leaderboard?flagged=include&sort=newest"), std::vector<std::string>{"std"});

  r = get("/api/v1/leaderboard?profile=other");
  ASSERT_EQ(r.status, 200) << r.body;
  json other = json::parse(r.body);
  EXPECT_EQ(other["view"], "other");
  EXPECT_EQ(other["ranked"], false);
  EXPECT_EQ(other["sort"], "newest");
  EXPECT_EQ(other["total"], 2);
  ASSERT_EQ(other["runs"].size(), 2u);
  EXPECT_EQ(other["runs"][0]["run_id"], "own");  // newest first
  for (const auto& run : other["runs"]) {
    EXPECT_TRUE(run["rank"].is_null()) << run["run_id"];
    EXPECT_EQ(run["ranked"], false) << run["run_id"];
  }
  EXPECT_EQ(other["runs"][1]["profile"], "quick/1");
  // A page link keeps the view.
  EXPECT_EQ(ids("/api/v1/leaderboard?profile=other&limit=1").size(), 1u);
  EXPECT_NE(json::parse(get("/api/v1/leaderboard?profile=other&limit=1").body)["next"].get<std::string>().find("profile=other"),
            std::string::npos);

  SiteResponse bad = get("/api/v1/leaderboard?profile=quick");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("profile"), std::string::npos) << bad.body;
  // The plain run list keeps every profile, and filters by the same parameter.
  EXPECT_EQ(ids("/api/v1/runs"), (std::vector<std::string>{"own", "quick", "std"}));
  EXPECT_EQ(ids("/api/v1/runs?profile=other"), (std::vector<std::string>{"own", "quick"}));
  EXPECT_EQ(json::parse(get("/api/v1/runs/quick").body)["settings"]["profile"], "quick/1");
}

TEST_F(ProfileSiteTest, TheLeaderboardPageHasARankingTabAndAnOtherRunsTab) {
  const std::string board = get("/").body;
  EXPECT_NE(board.find("data-run-id=\"std\""), std::string::npos);
  EXPECT_EQ(board.find("data-run-id=\"quick\""), std::string::npos);
  EXPECT_EQ(board.find("data-run-id=\"own\""), std::string::npos);
  EXPECT_NE(board.find("class=\"tab standard current\""), std::string::npos) << board;
  EXPECT_NE(board.find("Ranked: standard/1"), std::string::npos);
  EXPECT_NE(board.find("href=\"/?profile=other\""), std::string::npos);
  EXPECT_NE(board.find("id=\"other-runs-unranked\""), std::string::npos);
  EXPECT_NE(board.find("2 runs of another profile"), std::string::npos);
  EXPECT_NE(board.find("<td class=\"rank\">1</td>"), std::string::npos);

  const std::string other = get("/?profile=other").body;
  EXPECT_NE(other.find("data-run-id=\"quick\""), std::string::npos);
  EXPECT_NE(other.find("data-run-id=\"own\""), std::string::npos);
  EXPECT_EQ(other.find("data-run-id=\"std\""), std::string::npos);
  EXPECT_NE(other.find("class=\"tab other current\""), std::string::npos);
  EXPECT_NE(other.find("id=\"other-runs-lede\""), std::string::npos);
  EXPECT_EQ(other.find("class=\"rank\""), std::string::npos) << "other runs have no rank column";
  EXPECT_EQ(other.find("id=\"other-runs-unranked\""), std::string::npos);
  EXPECT_NE(other.find(">quick/1</span>"), std::string::npos) << "a quick run's badge names its profile";
  EXPECT_NE(other.find(">Own matrix</span>"), std::string::npos);
  // The kind tabs keep the view; the view tabs keep the kind.
  EXPECT_NE(other.find("href=\"/?kind=simulated&amp;profile=other\""), std::string::npos) << other;
  EXPECT_NE(get("/?kind=simulated").body.find("href=\"/?kind=simulated&amp;profile=other\""), std::string::npos);
  EXPECT_EQ(get("/?profile=sometimes").status, 400);
}

TEST_F(ProfileSiteTest, TheTabsAndNotesSpeakJapanese) {
  const std::string board = get("/?lang=ja").body;
  EXPECT_NE(board.find("その他の実行"), std::string::npos);
  EXPECT_NE(board.find("ランキング：standard/1"), std::string::npos);
  EXPECT_EQ(board.find("Other runs"), std::string::npos);
  const std::string other = get("/?profile=other&lang=ja").body;
  EXPECT_NE(other.find("標準プロファイル"), std::string::npos);
  EXPECT_NE(other.find(">独自のマトリクス</span>"), std::string::npos);
  EXPECT_EQ(other.find("Own matrix"), std::string::npos);
  EXPECT_NE(get("/runs/quick?lang=ja").body.find("短時間の確認"), std::string::npos);
}

TEST_F(ProfileSiteTest, ARunPageShowsItsProfile) {
  const std::string standard = get("/runs/std").body;
  EXPECT_NE(standard.find("id=\"run-profile\""), std::string::npos);
  EXPECT_NE(standard.find("<strong>standard/1</strong>, the standard profile: ranked"), std::string::npos);
  const std::string quick = get("/runs/quick").body;
  EXPECT_NE(quick.find("<strong>quick/1</strong>, a quick look"), std::string::npos);
  EXPECT_NE(quick.find("never ranked"), std::string::npos);
  const std::string own = get("/runs/own").body;
  EXPECT_NE(own.find("<strong>Own matrix</strong> (no standard profile)"), std::string::npos);
  EXPECT_NE(own.find("--profile standard"), std::string::npos);
}

TEST_F(ProfileSiteTest, AnOlderStandardIsListedApartNotRanked) {
  json answer = upload(run_of_profile("older", "standard/0", 999));
  EXPECT_EQ(answer["ranked"], false);
  EXPECT_EQ(answer["not_ranked_because"], "other_profile");
  EXPECT_EQ(ids("/api/v1/leaderboard"), std::vector<std::string>{"std"});
  EXPECT_EQ(ids("/api/v1/leaderboard?profile=other"), (std::vector<std::string>{"older", "own", "quick"}));
}

// ---- The upload client over real sockets: what `upload` prints after each ----

TEST(ProfileUploadClient, SaysWhetherEachUploadIsRankedOrListedApart) {
  test::TempDir dir;
  auto s = store::open_store("sqlite:" + dir.file("site.db"));
  ASSERT_TRUE(s) << s.error().message;
  auto t = generate_upload_token();
  ASSERT_TRUE(t);
  ASSERT_TRUE((*s)->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
  SiteConfig config;
  config.log_line = [](const std::string&) {};
  auto site = Site::create(**s, config);
  ASSERT_TRUE(site) << site.error().message;
  auto server = SiteServer::start(**site, {.host = "127.0.0.1", .port = 0, .threads = 1});
  ASSERT_TRUE(server) << server.error().message;
  upload::UploadOptions o;
  o.site_url = (*server)->base_url();
  o.token = t->secret;
  o.max_attempts = 1;

  auto standard = upload::upload_result_text(to_json(run_of_profile("u-std", "standard/1")).dump(), o);
  ASSERT_TRUE(standard) << standard.error().message;
  EXPECT_EQ(standard->ranked, true);
  EXPECT_EQ(upload::ranking_note(*standard), "ranked on the leaderboard (standard/1)");

  auto quick = upload::upload_result_text(to_json(run_of_profile("u-quick", "quick/1")).dump(), o);
  ASSERT_TRUE(quick) << quick.error().message;
  EXPECT_EQ(quick->ranked, false);
  EXPECT_EQ(upload::ranking_note(*quick), "listed under other runs, not ranked: quick/1 runs are never ranked");

  auto own = upload::upload_result_text(to_json(run_of_profile("u-own", "")).dump(), o);
  ASSERT_TRUE(own) << own.error().message;
  EXPECT_EQ(upload::ranking_note(*own),
            "listed under other runs, not ranked: no standard profile (run --profile standard to be ranked)");

  // A retry is answered the same way: the stored run's standing.
  auto again = upload::upload_result_text(to_json(run_of_profile("u-quick", "quick/1")).dump(), o);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->already_stored);
  EXPECT_EQ(upload::ranking_note(*again), upload::ranking_note(*quick));
}

// Issue 31 point 4: a run with adaptive windows whose cells settled early is listed under Other
// runs with its figures marked "~" (projections to the full window), and the API says so.
TEST_F(ProfileSiteTest, OtherRunsMarkAProjectedFigureAndTheApiSaysSo) {
  RunResult adaptive = run_of_profile("adaptive", "", 700);
  adaptive.settings.precision = 0.02;
  adaptive.settings.min_window_s = 10;
  for (DecodeCell& c : adaptive.decode)
    if (c.status == CellStatus::Valid && c.total_tok_s) {
      c.settled = true;
      c.window_tok_s = *c.total_tok_s * 0.995;
    }
  upload(adaptive);
  const std::string other = get("/?profile=other").body;
  const size_t row = other.find("data-run-id=\"adaptive\"");
  ASSERT_NE(row, std::string::npos) << other;
  const std::string adaptive_row = other.substr(row, other.find("</tr>", row) - row);
  EXPECT_NE(adaptive_row.find("<span class=\"projected\" title=\"projected to the full window"), std::string::npos)
      << adaptive_row;
  const size_t own = other.find("data-run-id=\"own\"");
  ASSERT_NE(own, std::string::npos);
  EXPECT_EQ(other.substr(own, other.find("</tr>", own) - own).find("class=\"projected\""), std::string::npos);
  for (const auto& run : json::parse(get("/api/v1/runs").body)["runs"]) {
    const bool is_adaptive = run["run_id"] == "adaptive";
    EXPECT_EQ(run["best_total_projected"], is_adaptive) << run["run_id"];
    EXPECT_EQ(run["single_stream_projected"], is_adaptive) << run["run_id"];
  }
}

}  // namespace
}  // namespace sm::site
