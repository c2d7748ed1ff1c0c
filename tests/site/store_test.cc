// The ResultStore against both backends: SQLite (always) and PostgreSQL (when
// SPEEDMATRIX_TEST_PG_DSN names a server: tests/site/pg_store_test.sh starts one and runs these).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <thread>

#include "result/result_json.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/migrations.h"
#include "store/postgres_store.h"
#include "store/result_store.h"
#include "store/run_summary.h"
#include "store/sqlite_store.h"
#include "support/temp_dir.h"

namespace sm::store {
namespace {

std::string pg_dsn() {
  const char* dsn = std::getenv("SPEEDMATRIX_TEST_PG_DSN");
  return dsn ? dsn : "";
}

RunRecord record_of(const RunResult& r, const std::string& uploaded_at = "2026-12-03T10:00:00.000Z",
                    const std::string& token_id = "") {
  RunRecord rec;
  rec.summary = summarize_run(r);
  rec.summary.uploaded_at = uploaded_at;
  rec.summary.token_id = token_id;
  rec.result_json = to_json(r).dump();
  rec.content_sha256 = site::sha256_hex(rec.result_json);
  return rec;
}

class StoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres") {
      if (pg_dsn().empty()) GTEST_SKIP() << "SPEEDMATRIX_TEST_PG_DSN not set (tests/site/pg_store_test.sh sets it)";
      auto c = open_postgres_connection(pg_dsn());
      ASSERT_TRUE(c) << c.error().message;
      for (const char* t : {"runs", "run_capacity", "tokens", "schema_migrations"}) {
        auto ok = (*c)->execute(std::string("DROP TABLE IF EXISTS ") + t + " CASCADE", {});
        ASSERT_TRUE(ok) << ok.error().message;
      }
    }
    reopen();
  }

  void reopen() {
    store_.reset();
    auto s = open_store(dsn(), {.pool_size = 4});
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
  }

  std::string dsn() const { return GetParam() == "postgres" ? pg_dsn() : "sqlite:" + dir_.file("results.db"); }

  test::TempDir dir_;
  std::unique_ptr<ResultStore> store_;
};

TEST_P(StoreTest, MigratesToTheLatestVersionOnceAndRecordsIt) {
  auto v = store_->schema_version();
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(*v, latest_schema_version());
  EXPECT_EQ(store_->backend(), GetParam() == "postgres" ? "postgresql" : "sqlite");
  reopen();  // a second open applies nothing and fails nothing
  EXPECT_EQ(store_->schema_version().value_or(0), latest_schema_version());
  int64_t previous = 0;
  for (const Migration& m : migrations()) {
    EXPECT_GT(m.version, previous);
    previous = m.version;
  }
}

TEST_P(StoreTest, PutIsIdempotentByRunIdAndRefusesADifferentRunWithTheSameId) {
  RunRecord rec = record_of(test::site_result("run-a"));
  EXPECT_EQ(store_->put_run(rec).value(), PutStatus::Created);
  EXPECT_EQ(store_->put_run(rec).value(), PutStatus::Existing);
  RunRecord other = record_of(test::site_result("run-a", "Other-Model"));
  EXPECT_EQ(store_->put_run(other).value(), PutStatus::Conflict);
  auto json = store_->get_run_json("run-a");
  ASSERT_TRUE(json && *json);
  EXPECT_EQ(**json, rec.result_json);
  auto page = store_->list_runs({}, RunOrder::Newest, {});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->total, 1);
}

TEST_P(StoreTest, SummaryRoundTripsExactly) {
  RunResult r = test::site_result("run-x", "Qwen3.5-4B-AWQ-4bit", "NVIDIA GeForce RTX 3090", 181.7, 8783.25);
  ASSERT_TRUE(store_->put_run(record_of(r, "2026-12-03T10:00:00.123Z")));
  auto s = store_->get_run_summary("run-x");
  ASSERT_TRUE(s && *s);
  const RunSummary& got = **s;
  EXPECT_EQ(got.model, "Qwen3.5-4B-AWQ-4bit");
  EXPECT_EQ(got.gpu, "RTX 3090 24GB");
  EXPECT_EQ(got.engine, "vllm");
  EXPECT_EQ(got.engine_version, "0.32.0");
  EXPECT_EQ(got.quantization, "AWQ 4-bit");
  EXPECT_EQ(got.uploaded_at, "2026-12-03T10:00:00.123Z");
  EXPECT_EQ(got.single_stream_tok_s, 181.7);
  EXPECT_EQ(got.single_stream_context, 0);
  EXPECT_EQ(got.best_total_tok_s, 181.7 * 1.8);
  EXPECT_EQ(got.best_total_concurrency, 2);
  EXPECT_EQ(got.best_total_context, 0);
  EXPECT_EQ(got.prefill_32k_tok_s, 8783.25);
  EXPECT_EQ(got.valid_cells, 4);
  EXPECT_EQ(got.decode_cells, 4);
  EXPECT_TRUE(got.token_id.empty());
  EXPECT_FALSE(store_->get_run_summary("nope").value().has_value());
  EXPECT_FALSE(store_->get_run_json("nope").value().has_value());
}

TEST_P(StoreTest, ListsFilterOrderAndPage) {
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("a", "M1", "NVIDIA GeForce RTX 3090", 100), "2026-12-03T10:00:01.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("b", "M1", "NVIDIA H100", 300, std::nullopt), "2026-12-03T10:00:02.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("c", "M2", "NVIDIA H100", 200, 9000.0, "simulated"), "2026-12-03T10:00:03.000Z")));

  auto ids = [](const RunPage& p) {
    std::string out;
    for (const auto& r : p.runs) out += r.run_id;
    return out;
  };
  EXPECT_EQ(ids(store_->list_runs({}, RunOrder::Newest, {}).value()), "cba");
  EXPECT_EQ(ids(store_->list_runs({}, RunOrder::SingleStream, {}).value()), "bca");
  EXPECT_EQ(ids(store_->list_runs({}, RunOrder::BestTotal, {}).value()), "bca");
  // b has no 32K prefill: it goes last, not first.
  EXPECT_EQ(ids(store_->list_runs({}, RunOrder::Prefill32K, {}).value()), "cab");

  EXPECT_EQ(ids(store_->list_runs({.gpu = "H100 24GB"}, RunOrder::Newest, {}).value()), "cb");
  EXPECT_EQ(ids(store_->list_runs({.model = "M1"}, RunOrder::Newest, {}).value()), "ba");
  EXPECT_EQ(ids(store_->list_runs({.kind = "simulated"}, RunOrder::Newest, {}).value()), "c");
  // c is simulated: its engine is "sim", whatever the simulated engine imitates.
  EXPECT_EQ(ids(store_->list_runs({.engine = "vllm", .quantization = "AWQ 4-bit"}, RunOrder::Newest, {}).value()), "ba");
  EXPECT_EQ(ids(store_->list_runs({.engine = "sim"}, RunOrder::Newest, {}).value()), "c");
  EXPECT_EQ(ids(store_->list_runs({.engine = "sglang"}, RunOrder::Newest, {}).value()), "");

  auto page = store_->list_runs({}, RunOrder::Newest, {.limit = 2, .offset = 1}).value();
  EXPECT_EQ(ids(page), "ba");
  EXPECT_EQ(page.total, 3);
  page = store_->list_runs({.gpu = "H100 24GB"}, RunOrder::Newest, {.limit = 1, .offset = 1}).value();
  EXPECT_EQ(ids(page), "b");
  EXPECT_EQ(page.total, 2);
}

TEST_P(StoreTest, ValuesThatLookLikeSqlAreJustValues) {
  RunResult r = test::site_result("inj", "x'); DROP TABLE runs; --", "NVIDIA \" OR 1=1 --");
  ASSERT_TRUE(store_->put_run(record_of(r)));
  EXPECT_EQ(store_->list_runs({.model = "' OR '1'='1"}, RunOrder::Newest, {}).value().total, 0);
  EXPECT_EQ(store_->list_runs({.gpu = "x' OR gpu LIKE '%"}, RunOrder::Newest, {}).value().total, 0);
  auto page = store_->list_runs({.model = "x'); DROP TABLE runs; --"}, RunOrder::Newest, {}).value();
  ASSERT_EQ(page.total, 1);
  EXPECT_EQ(page.runs[0].gpu, "\" OR 1=1 -- 24GB");
  EXPECT_EQ(store_->revoke_token("' OR 1=1 --", "now").value(), 0);
}

TEST_P(StoreTest, GroupsAndFilterValues) {
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("a", "M1", "NVIDIA GeForce RTX 3090", 100), "2026-12-03T10:00:01.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("b", "M2", "NVIDIA GeForce RTX 3090", 150), "2026-12-03T10:00:02.000Z")));
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("c", "M1", "NVIDIA H100", 300), "2026-12-03T10:00:03.000Z")));
  auto hw = store_->hardware_summary().value();
  ASSERT_EQ(hw.size(), 2u);
  EXPECT_EQ(hw[0].name, "H100 24GB");
  EXPECT_EQ(hw[0].runs, 1);
  EXPECT_EQ(hw[1].name, "RTX 3090 24GB");
  EXPECT_EQ(hw[1].runs, 2);
  EXPECT_EQ(hw[1].distinct_other, 2);
  EXPECT_EQ(hw[1].best_single_stream_tok_s, 150);
  EXPECT_EQ(hw[1].last_uploaded_at, "2026-12-03T10:00:02.000Z");
  auto models = store_->model_summary().value();
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].name, "M1");
  EXPECT_EQ(models[0].distinct_other, 2);
  EXPECT_EQ(models[0].best_total_tok_s, 300 * 1.8);
  auto values = store_->filter_values().value();
  EXPECT_EQ(values.gpus, (std::vector<std::string>{"H100 24GB", "RTX 3090 24GB"}));
  EXPECT_EQ(values.models, (std::vector<std::string>{"M1", "M2"}));
  EXPECT_EQ(values.engines, (std::vector<std::string>{"vllm"}));
  EXPECT_EQ(values.quantizations, (std::vector<std::string>{"AWQ 4-bit"}));
  EXPECT_EQ(values.kinds, (std::vector<std::string>{"measured"}));
}

TEST_P(StoreTest, HiddenRunsAreOutOfListingsGroupsAndReadsButStillKnownToModeration) {
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("shown", "M1"))));
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("hidden", "M2"))));
  ASSERT_EQ(store_->set_hidden("hidden", true).value(), 1);
  EXPECT_EQ(store_->set_hidden("hidden", true).value(), 0);  // already hidden
  EXPECT_EQ(store_->list_runs({}, RunOrder::Newest, {}).value().total, 1);
  EXPECT_EQ(store_->model_summary().value().size(), 1u);
  EXPECT_EQ(store_->filter_values().value().models, std::vector<std::string>{"M1"});
  EXPECT_FALSE(store_->get_run_json("hidden").value());
  auto summary = store_->get_run_summary("hidden").value();
  ASSERT_TRUE(summary);
  EXPECT_TRUE(summary->hidden);
  RunFilter moderation;
  moderation.include_hidden = true;
  EXPECT_EQ(store_->list_runs(moderation, RunOrder::Newest, {}).value().total, 2);
  ASSERT_EQ(store_->set_hidden("hidden", false).value(), 1);
  EXPECT_EQ(store_->list_runs({}, RunOrder::Newest, {}).value().total, 2);
  EXPECT_EQ(store_->delete_run("hidden").value(), 1);
  EXPECT_EQ(store_->delete_run("hidden").value(), 0);
  EXPECT_FALSE(store_->get_run_summary("hidden").value());
}

TEST_P(StoreTest, TheSameMeasurementsUnderAnotherIdAreADuplicate) {
  RunRecord first = record_of(test::site_result("first"));
  first.measurements_sha256 = std::string(64, 'a');
  RunRecord second = record_of(test::site_result("second"));
  second.measurements_sha256 = first.measurements_sha256;
  EXPECT_EQ(store_->put_run(first).value(), PutStatus::Created);
  EXPECT_EQ(store_->put_run(second).value(), PutStatus::Duplicate);
  EXPECT_EQ(store_->find_run_by_measurements(first.measurements_sha256).value(), std::optional<std::string>("first"));
  EXPECT_FALSE(store_->find_run_by_measurements(std::string(64, 'b')).value());
  EXPECT_EQ(store_->put_run(first).value(), PutStatus::Existing);  // the id decides first
  EXPECT_EQ(store_->list_runs({}, RunOrder::Newest, {}).value().total, 1);
}

TEST_P(StoreTest, FlagsKindFiltersAndTheCalculatorSetupKeyRoundTrip) {
  RunRecord flagged = record_of(test::site_result("flagged", "M1"));
  flagged.summary.implausible = "decode 0 × 1: too fast";
  flagged.summary.calc_gpu = "rtx3090";
  flagged.summary.calc_gpu_count = 1;
  flagged.summary.calc_model = "qwen3.5-4b";
  flagged.summary.calc_engine = "vllm";
  RunRecord synthetic = record_of(test::site_result("synthetic", "M2"));
  synthetic.summary.synthetic_model = true;
  RunRecord plain = record_of(test::site_result("plain", "M3"));
  plain.summary.calc_gpu = "rtx3090";
  plain.summary.calc_gpu_count = 1;
  plain.summary.calc_model = "qwen3.5-4b";
  plain.summary.calc_engine = "vllm";
  RunRecord sim = record_of(test::site_result("sim", "M4", "NVIDIA GeForce RTX 3090", 180, 8783.0, "simulated"));
  for (const auto* r : {&flagged, &synthetic, &plain, &sim}) ASSERT_TRUE(store_->put_run(*r));
  auto back = store_->get_run_summary("flagged").value();
  ASSERT_TRUE(back);
  EXPECT_EQ(back->implausible, flagged.summary.implausible);
  EXPECT_EQ(back->calc_model, "qwen3.5-4b");
  EXPECT_TRUE(store_->get_run_summary("synthetic").value()->synthetic_model);
  RunFilter ranked;
  ranked.unflagged_only = true;
  auto page = store_->list_runs(ranked, RunOrder::Newest, {}).value();
  EXPECT_EQ(page.total, 2);  // plain and sim
  RunFilter engine;
  engine.engine = "sim";
  auto sims = store_->list_runs(engine, RunOrder::Newest, {}).value();
  ASSERT_EQ(sims.total, 1);
  EXPECT_EQ(sims.runs[0].run_id, "sim");
  // The group's best numbers skip flagged runs; the kind filter keeps one kind.
  auto groups = store_->hardware_summary("simulated").value();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].runs, 1);
  auto setup = store_->list_runs_for_setup({"rtx3090", 1, "qwen3.5-4b", "vllm"}, 10).value();
  ASSERT_EQ(setup.size(), 2u);  // measured runs of the setup, flagged ones too (with their badge)
  EXPECT_TRUE(store_->list_runs_for_setup({"rtx3090", 2, "qwen3.5-4b", "vllm"}, 10).value().empty());
}

TEST_P(StoreTest, TokensAreFoundByHashRevokedByIdAndCountUploads) {
  TokenInfo t{"tk_000000000001", "lab", "2026-12-03T09:00:00Z", "", 0};
  ASSERT_TRUE(store_->create_token(t, site::sha256_hex("secret-1")));
  ASSERT_TRUE(store_->create_token({"tk_000000000002", "ci", "2026-12-03T09:00:01Z", "", 0}, site::sha256_hex("secret-2")));
  EXPECT_FALSE(store_->create_token({"tk_000000000003", "dup", "x", "", 0}, site::sha256_hex("secret-1")))
      << "the same hash twice must be refused";
  auto found = store_->find_token(site::sha256_hex("secret-1")).value();
  ASSERT_TRUE(found);
  EXPECT_EQ(found->token_id, "tk_000000000001");
  EXPECT_EQ(found->name, "lab");
  EXPECT_FALSE(store_->find_token(site::sha256_hex("wrong")).value());

  ASSERT_TRUE(store_->put_run(record_of(test::site_result("a"), "2026-12-03T10:00:00.000Z", "tk_000000000001")));
  auto list = store_->list_tokens().value();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].uploads, 1);
  EXPECT_EQ(list[1].uploads, 0);

  // A name revokes nothing (names are not unique: it used to revoke every token of the name).
  EXPECT_EQ(store_->revoke_token("lab", "2026-12-03T10:30:00Z").value(), 0);
  EXPECT_TRUE(store_->find_token(site::sha256_hex("secret-1")).value());
  EXPECT_EQ(store_->revoke_token("tk_000000000001", "2026-12-03T11:00:00Z").value(), 1);
  EXPECT_FALSE(store_->find_token(site::sha256_hex("secret-1")).value());
  EXPECT_EQ(store_->revoke_token("tk_000000000001", "2026-12-03T11:00:00Z").value(), 0);
  EXPECT_EQ(store_->revoke_token("tk_000000000002", "2026-12-03T11:00:01Z").value(), 1);
  list = store_->list_tokens().value();
  EXPECT_EQ(list[0].revoked_at, "2026-12-03T11:00:00Z");
  EXPECT_EQ(list[1].revoked_at, "2026-12-03T11:00:01Z");
}

TEST_P(StoreTest, ModerationListsFilterByTokenKindAndFlag) {
  ASSERT_TRUE(store_->create_token({"tk_000000000001", "lab", "2026-12-03T09:00:00Z", "", 0}, site::sha256_hex("s1")));
  ASSERT_TRUE(store_->create_token({"tk_000000000002", "ci", "2026-12-03T09:00:01Z", "", 0}, site::sha256_hex("s2")));
  RunRecord flagged = record_of(test::site_result("flagged"), "2026-12-03T10:00:01.000Z", "tk_000000000001");
  flagged.summary.implausible = "decode 10000 tok/s";
  RunRecord hidden = record_of(test::site_result("hidden", "M2"), "2026-12-03T10:00:02.000Z", "tk_000000000001");
  hidden.summary.hidden = true;
  RunRecord plain = record_of(test::site_result("plain", "M3"), "2026-12-03T10:00:03.000Z", "tk_000000000002");
  RunRecord sim = record_of(test::site_result("sim", "M4", "NVIDIA GeForce RTX 3090", 180, 8783.0, "simulated"),
                            "2026-12-03T10:00:04.000Z", "tk_000000000002");
  RunRecord unknown = record_of(test::site_result("unknown", "M5"), "2026-12-03T10:00:05.000Z", "tk_000000000002");
  unknown.summary.gpu = std::string(kUnknownHardwareGroup);
  for (const auto* r : {&flagged, &hidden, &plain, &sim, &unknown}) ASSERT_TRUE(store_->put_run(*r));

  auto ids = [&](const ModerationFilter& f, int64_t limit = 100) {
    auto page = store_->list_runs_for_moderation(f, limit);
    EXPECT_TRUE(page) << page.error().message;
    std::vector<std::string> out;
    for (const auto& r : page->runs) out.push_back(r.run_id);
    out.push_back("total=" + std::to_string(page->total));
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(ids({}), (V{"unknown", "sim", "plain", "hidden", "flagged", "total=5"}));  // newest first, hidden too
  EXPECT_EQ(ids({}, 2), (V{"unknown", "sim", "total=5"}));
  EXPECT_EQ(ids({.token_id = "tk_000000000001"}), (V{"hidden", "flagged", "total=2"}));
  EXPECT_EQ(ids({.kind = "simulated"}), (V{"sim", "total=1"}));
  EXPECT_EQ(ids({.flag = "implausible"}), (V{"flagged", "total=1"}));
  EXPECT_EQ(ids({.flag = "hidden"}), (V{"hidden", "total=1"}));
  EXPECT_EQ(ids({.flag = "unknown_hardware"}), (V{"unknown", "total=1"}));
  EXPECT_EQ(ids({.flag = "none"}), (V{"sim", "plain", "total=2"}));
  EXPECT_EQ(ids({.token_id = "tk_000000000002", .kind = "measured", .flag = "none"}), (V{"plain", "total=1"}));
  EXPECT_EQ(ids({.token_id = "' OR 1=1 --"}), (V{"total=0"}));
}

// Migration 7 redacts the runs stored before the site redacted uploads: a result with a password
// in its URL and a key in its launch command, stored as sent, is clean after the migration runs.
TEST_P(StoreTest, MigrationSevenRedactsRunsStoredBeforeIt) {
  RunResult r = test::site_result("leaky");
  r.target_url = "http://alice:hunter2@gpu-box:8000/v1?api_key=sk-live-0123456789abcdef";
  r.launch_command = "vllm serve Qwen/Qwen3.5-4B --api-key sk-live-0123456789abcdef --port 8000";
  r.notes = "bearer sk-live-0123456789abcdef";
  RunRecord rec = record_of(r);
  nlohmann::json doc = nlohmann::json::parse(rec.result_json);
  doc["x_field_of_a_newer_client"] = {{"kept", true}};
  rec.result_json = doc.dump();
  rec.content_sha256 = site::sha256_hex(rec.result_json);
  ASSERT_TRUE(store_->put_run(rec));
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("clean", "M2"))));
  const std::string clean_before = store_->get_run_json("clean").value().value();
  // As a database at version 6 would be: the rewrite has not run.
  {
    auto c = GetParam() == "postgres" ? open_postgres_connection(pg_dsn())
                                      : open_sqlite_connection(dir_.file("results.db"), SqliteSync::Normal);
    ASSERT_TRUE(c) << c.error().message;
    // Migration 8's columns and index undone too (and 9's and 11's), so they run again.
    for (const char* sql : {"DROP INDEX runs_checked_with", "ALTER TABLE runs DROP COLUMN gpu_reported",
                            "ALTER TABLE runs DROP COLUMN model_reported", "ALTER TABLE runs DROP COLUMN unverified_hardware",
                            "ALTER TABLE runs DROP COLUMN checked_with", "ALTER TABLE runs DROP COLUMN projected_figures",
                            "ALTER TABLE runs DROP COLUMN retrieval", "ALTER TABLE runs DROP COLUMN retrieval_failed",
                            "DELETE FROM schema_migrations WHERE version >= 7"})
      ASSERT_TRUE((*c)->execute(sql, {})) << sql;
  }
  ASSERT_NE(store_->get_run_json("leaky").value().value().find("hunter2"), std::string::npos);
  reopen();
  EXPECT_EQ(store_->schema_version().value_or(0), latest_schema_version());
  const std::string text = store_->get_run_json("leaky").value().value();
  EXPECT_EQ(text.find("hunter2"), std::string::npos) << text;
  EXPECT_EQ(text.find("sk-live"), std::string::npos) << text;
  EXPECT_NE(text.find("<redacted>"), std::string::npos);
  auto stored = nlohmann::json::parse(text);
  EXPECT_EQ(stored["x_field_of_a_newer_client"]["kept"], true) << "fields the model does not know are kept";
  EXPECT_EQ(stored["launch_command"], "vllm serve Qwen/Qwen3.5-4B --api-key <redacted> --port 8000");
  EXPECT_EQ(store_->get_run_json("clean").value().value(), clean_before) << "a clean run is not rewritten";
}

TEST_P(StoreTest, BatchWriteIsOneTransaction) {
  std::vector<RunRecord> batch = {record_of(test::site_result("b1")), record_of(test::site_result("b2"))};
  auto statuses = store_->put_runs(batch);
  ASSERT_TRUE(statuses) << statuses.error().message;
  EXPECT_EQ(*statuses, (std::vector<PutStatus>{PutStatus::Created, PutStatus::Created}));
  // The second record names a token that does not exist (foreign key): the whole batch fails
  // and the first record of it is not kept either.
  std::vector<RunRecord> bad = {record_of(test::site_result("b3")),
                                record_of(test::site_result("b4"), "2026-12-03T10:00:00.000Z", "tk_missing")};
  EXPECT_FALSE(store_->put_runs(bad));
  EXPECT_FALSE(store_->get_run_json("b3").value().has_value());
  EXPECT_EQ(store_->list_runs({}, RunOrder::Newest, {}).value().total, 2);
  // The connection that failed is usable again.
  EXPECT_EQ(store_->put_run(record_of(test::site_result("b5"))).value(), PutStatus::Created);
}

TEST_P(StoreTest, ConcurrentWritersAllLand) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 12;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto s = store_->put_run(record_of(test::site_result(fmt::format("t{}-{}", t, i))));
        if (!s || *s != PutStatus::Created) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(store_->list_runs({}, RunOrder::Newest, {}).value().total, kThreads * kPerThread);
}

// Issue 31 point 4: which listed figures are projections of a settled adaptive window
// (--precision): kept per run, and backfilled by migration 9 for runs stored before it.
RunResult adaptive_run(const std::string& id) {
  RunResult r = test::site_result(id);
  r.settings.profile = "";
  r.settings.precision = 0.02;
  r.settings.min_window_s = 10;
  for (DecodeCell& c : r.decode) {
    if (c.status != CellStatus::Valid || !c.total_tok_s) continue;
    c.settled = true;
    c.window_tok_s = *c.total_tok_s * 0.995;
  }
  return r;
}

TEST_P(StoreTest, ProjectedFiguresRoundTripAndMigrationNineMarksRunsStoredBefore) {
  const RunSummary fixed = summarize_run(test::site_result("fixed"));
  EXPECT_FALSE(fixed.single_stream_projected || fixed.best_total_projected);
  ASSERT_TRUE(store_->put_run(record_of(adaptive_run("adaptive"))));
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("fixed"))));
  auto adaptive = store_->get_run_summary("adaptive").value();
  ASSERT_TRUE(adaptive);
  EXPECT_TRUE(adaptive->single_stream_projected);
  EXPECT_TRUE(adaptive->best_total_projected);
  EXPECT_FALSE(store_->get_run_summary("fixed").value()->best_total_projected);
  // As a database at version 8 would be, with the run stored before the column: migration 9
  // marks it from its result.
  {
    auto c = GetParam() == "postgres" ? open_postgres_connection(pg_dsn())
                                      : open_sqlite_connection(dir_.file("results.db"), SqliteSync::Normal);
    ASSERT_TRUE(c) << c.error().message;
    for (const char* sql : {"ALTER TABLE runs DROP COLUMN projected_figures", "ALTER TABLE runs DROP COLUMN retrieval",
                            "ALTER TABLE runs DROP COLUMN retrieval_failed", "DELETE FROM schema_migrations WHERE version >= 9"})
      ASSERT_TRUE((*c)->execute(sql, {})) << sql;
  }
  reopen();
  EXPECT_EQ(store_->schema_version().value_or(0), latest_schema_version());
  adaptive = store_->get_run_summary("adaptive").value();
  EXPECT_TRUE(adaptive->single_stream_projected);
  EXPECT_TRUE(adaptive->best_total_projected);
  EXPECT_FALSE(store_->get_run_summary("fixed").value()->best_total_projected);
}

TEST_P(StoreTest, RetrievalVerdictRoundTripsAndMigrationElevenFillsItForRunsStoredBefore) {
  RunResult unread = test::site_result("unread");
  RetrievalCheck check;
  check.depth = 0.25;
  for (auto [context, verdict] : {std::pair{int64_t{16384}, RetrievalVerdict::Wrong}, {int64_t{65536}, RetrievalVerdict::Exact},
                                  {int64_t{131072}, RetrievalVerdict::Truncated}}) {
    check.context = context;
    check.verdict = verdict;
    unread.retrieval.push_back(check);
  }
  RunResult read = test::site_result("read");
  check.verdict = RetrievalVerdict::Exact;
  read.retrieval = {check};
  ASSERT_TRUE(store_->put_run(record_of(unread)));
  ASSERT_TRUE(store_->put_run(record_of(read)));
  ASSERT_TRUE(store_->put_run(record_of(test::site_result("unchecked"))));
  auto verdicts = [&] {
    std::string out;
    for (const char* id : {"unread", "read", "unchecked"}) {
      const auto s = store_->get_run_summary(id).value();
      if (!s) return std::string("missing ") + id;
      out += fmt::format("{}={}[{}] ", id, s->retrieval, context_list_text(s->retrieval_failed_contexts));
    }
    return out;
  };
  const std::string expected = "unread=failed[16384,131072] read=read[] unchecked=[] ";
  EXPECT_EQ(verdicts(), expected);
  // Listings read it too.
  const RunPage page = store_->list_runs({}, RunOrder::Newest, {}).value();
  ASSERT_EQ(page.runs.size(), 3u);
  for (const RunSummary& s : page.runs) {
    if (s.run_id == "unread") {
      EXPECT_EQ(s.retrieval_failed_contexts, (std::vector<int64_t>{16384, 131072}));
    }
  }
  // As a database at version 10 would be, with the runs stored before the columns: migration 11
  // fills them from the stored results.
  {
    auto c = GetParam() == "postgres" ? open_postgres_connection(pg_dsn())
                                      : open_sqlite_connection(dir_.file("results.db"), SqliteSync::Normal);
    ASSERT_TRUE(c) << c.error().message;
    for (const char* sql : {"ALTER TABLE runs DROP COLUMN retrieval", "ALTER TABLE runs DROP COLUMN retrieval_failed",
                            "DELETE FROM schema_migrations WHERE version >= 11"})
      ASSERT_TRUE((*c)->execute(sql, {})) << sql;
  }
  reopen();
  EXPECT_EQ(store_->schema_version().value_or(0), latest_schema_version());
  EXPECT_EQ(verdicts(), expected);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param == "postgres" ? std::string("Postgres") : std::string("Sqlite"); });

TEST(StoreDsn, RefusesWhatItCannotOpenAndRedactsPasswords) {
  EXPECT_FALSE(open_store("mysql://x"));
  EXPECT_FALSE(open_store("sqlite:"));
  EXPECT_FALSE(open_store("sqlite::memory:"));
  EXPECT_EQ(redact_dsn("postgresql://u:hunter2@db:5432/x"), "postgresql://u:***@db:5432/x");
  EXPECT_EQ(redact_dsn("host=db password=hunter2 dbname=x"), "host=db password=*** dbname=x");
  EXPECT_EQ(redact_dsn("postgresql://u@db/x?password=hunter2&sslmode=disable"),
            "postgresql://u@db/x?password=***&sslmode=disable");
  auto pg = open_store("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2");
  ASSERT_FALSE(pg);
  EXPECT_NE(pg.error().message.find("cannot connect to PostgreSQL"), std::string::npos);
}

TEST(StoreSqlite, UsesWriteAheadLogging) {
  test::TempDir dir;
  auto c = open_sqlite_connection(dir.file("x.db"), SqliteSync::Normal);
  ASSERT_TRUE(c);
  auto rows = (*c)->query("PRAGMA journal_mode", {});
  ASSERT_TRUE(rows && !rows->empty());
  EXPECT_EQ(rows->front().text(0), "wal");
  rows = (*c)->query("PRAGMA synchronous", {});
  EXPECT_EQ(rows->front().integer(0), 1);  // NORMAL
}

}  // namespace
}  // namespace sm::store
