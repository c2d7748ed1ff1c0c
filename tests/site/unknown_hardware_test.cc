// Runs on unknown hardware (a server on another machine, nothing declared): listed under
// "unknown hardware", kept out of the leaderboard and the per-hardware groups — in the store
// (SQLite, and PostgreSQL under tests/site/pg_store_test.sh), the API and the pages.
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "site/json_schema.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/site_harness.h"
#include "site/upload_token.h"
#include "store/postgres_store.h"
#include "store/result_store.h"
#include "store/run_summary.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

using nlohmann::json;

// The fastest run of all, measured across the network with nothing declared.
RunResult remote_run(const std::string& id, double single_tok_s = 900) {
  RunResult r = test::site_result(id, "M1", "NVIDIA GeForce RTX 3090", single_tok_s);
  HardwareInfo client = r.hardware;  // what an older speedmatrix would have credited
  r.client_hardware = client;
  r.hardware = HardwareInfo{};
  r.hardware.source = HardwareSource::Unknown;
  r.hardware.source_detail = "gpu-box resolves to 10.0.0.7, which is not an address of this machine";
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

std::vector<std::string> ids(const store::RunPage& page) {
  std::vector<std::string> out;
  for (const auto& s : page.runs) out.push_back(s.run_id);
  return out;
}

class UnknownHardwareStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string dsn = "sqlite:" + dir_.file("results.db");
    if (GetParam() == "postgres") {
      const char* pg = std::getenv("SPEEDMATRIX_TEST_PG_DSN");
      if (!pg) GTEST_SKIP() << "SPEEDMATRIX_TEST_PG_DSN not set (tests/site/pg_store_test.sh sets it)";
      dsn = pg;
      auto c = store::open_postgres_connection(dsn);
      ASSERT_TRUE(c) << c.error().message;
      for (const char* t : {"runs", "run_capacity", "tokens", "schema_migrations"})
        ASSERT_TRUE((*c)->execute(std::string("DROP TABLE IF EXISTS ") + t + " CASCADE", {}));
    }
    auto s = store::open_store(dsn);
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    ASSERT_TRUE(store_->put_run(record_of(test::site_result("a", "M1", "NVIDIA GeForce RTX 3090", 100), "2026-12-03T10:00:01.000Z")));
    ASSERT_TRUE(store_->put_run(record_of(test::site_result("b", "M2", "NVIDIA H100", 300), "2026-12-03T10:00:02.000Z")));
    ASSERT_TRUE(store_->put_run(record_of(remote_run("far"), "2026-12-03T10:00:03.000Z")));
  }

  test::TempDir dir_;
  std::unique_ptr<store::ResultStore> store_;
};

TEST_P(UnknownHardwareStoreTest, AreListedButNeitherRankedNorGrouped) {
  EXPECT_EQ(store::summarize_run(remote_run("x")).gpu, "unknown hardware");

  // Ranked listings leave them out; plain listings keep them.
  store::RunFilter ranked;
  ranked.known_hardware_only = true;
  auto board = store_->list_runs(ranked, store::RunOrder::SingleStream, {});
  ASSERT_TRUE(board) << board.error().message;
  EXPECT_EQ(ids(*board), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(board->total, 2);
  auto all = store_->list_runs({}, store::RunOrder::SingleStream, {});
  ASSERT_TRUE(all);
  EXPECT_EQ(ids(*all), (std::vector<std::string>{"far", "b", "a"}));
  store::RunFilter unknown;
  unknown.gpu = std::string(store::kUnknownHardwareGroup);
  EXPECT_EQ(ids(store_->list_runs(unknown, store::RunOrder::Newest, {}).value()), (std::vector<std::string>{"far"}));
  EXPECT_EQ(store::count_unknown_hardware_runs(*store_).value(), 1);

  // No group of their own, and not counted as a kind of hardware.
  auto hw = store_->hardware_summary();
  ASSERT_TRUE(hw) << hw.error().message;
  ASSERT_EQ(hw->size(), 2u);
  EXPECT_EQ((*hw)[0].name, "H100 24GB");
  EXPECT_EQ((*hw)[1].name, "RTX 3090 24GB");
  EXPECT_EQ((*hw)[1].best_single_stream_tok_s, 100);  // not the 900 of the unknown machine
  auto models = store_->model_summary();
  ASSERT_TRUE(models) << models.error().message;
  ASSERT_EQ(models->size(), 2u);
  EXPECT_EQ((*models)[0].name, "M1");
  EXPECT_EQ((*models)[0].runs, 2);
  EXPECT_EQ((*models)[0].distinct_other, 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, UnknownHardwareStoreTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param == "postgres" ? std::string("Postgres") : std::string("Sqlite"); });

class UnknownHardwareSiteTest : public test::SiteHarness {
 protected:
  site::SiteConfig site_config() const override { return {}; }  // the default upload rate limit
  SiteResponse upload_json(const json& result) { return request(HttpMethod::Post, "/api/v1/runs", result.dump()); }
};

TEST_F(UnknownHardwareSiteTest, ApiAndPagesListThemUnderUnknownHardwareOutOfTheRankings) {
  ASSERT_EQ(upload(test::site_result("a", "M1", "NVIDIA GeForce RTX 3090", 100)), 201);
  ASSERT_EQ(upload(remote_run("far")), 201);

  json board = json::parse(get("/api/v1/leaderboard").body);
  EXPECT_EQ(board["total"], 1);
  EXPECT_EQ(board["runs"][0]["run_id"], "a");
  EXPECT_EQ(board["runs"][0]["rank"], 1);
  json runs = json::parse(get("/api/v1/runs?gpu=unknown%20hardware").body);
  ASSERT_EQ(runs["total"], 1);
  EXPECT_EQ(runs["runs"][0]["run_id"], "far");
  json hw = json::parse(get("/api/v1/hardware").body);
  ASSERT_EQ(hw["hardware"].size(), 1u);
  EXPECT_EQ(hw["hardware"][0]["name"], "RTX 3090 24GB");
  EXPECT_EQ(hw["unknown_hardware_runs"], 1);

  SiteResponse page = get("/");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("data-run-id=\"a\""), std::string::npos);
  EXPECT_EQ(page.body.find("data-run-id=\"far\""), std::string::npos);
  EXPECT_EQ(page.body.find("<option value=\"unknown hardware\""), std::string::npos);  // not a ranking filter
  EXPECT_NE(page.body.find("id=\"unknown-hardware\""), std::string::npos);
  EXPECT_NE(page.body.find("href=\"/hardware?gpu=unknown%20hardware\""), std::string::npos);

  SiteResponse hardware = get("/hardware");
  EXPECT_NE(hardware.body.find("RTX 3090 24GB"), std::string::npos);
  EXPECT_NE(hardware.body.find("<h2>Unknown hardware</h2>"), std::string::npos);
  EXPECT_NE(hardware.body.find("1 run</a> measured a server on another machine"), std::string::npos);
  SiteResponse group = get("/hardware?gpu=unknown%20hardware");
  EXPECT_NE(group.body.find("data-run-id=\"far\""), std::string::npos);
  EXPECT_NE(group.body.find("kept out of the leaderboard"), std::string::npos);
  EXPECT_NE(get("/runs").body.find("data-run-id=\"far\""), std::string::npos);  // every run is listed
  SiteResponse report = get("/runs/far");
  EXPECT_NE(report.body.find("on unknown hardware"), std::string::npos);
  EXPECT_NE(get("/getting-started").body.find("--server-hardware gpu-box.json"), std::string::npos);
}

TEST_F(UnknownHardwareSiteTest, UploadRulesBoundTheClientsFactsLikeTheServers) {
  json j = to_json(remote_run("big"));
  j["client_hardware"]["gpus"] = json::array();
  for (int i = 0; i < 257; ++i) j["client_hardware"]["gpus"].push_back({{"name", "x"}});
  SiteResponse refused = upload_json(j);
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find("$.client_hardware.gpus: more than 256 items"), std::string::npos) << refused.body;
  j = to_json(remote_run("long"));
  j["hardware"]["source_detail"] = std::string(1001, 'x');
  SiteResponse too_long = upload_json(j);
  EXPECT_EQ(too_long.status, 400);
  EXPECT_NE(too_long.body.find("$.hardware.source_detail: longer than 1000 characters"), std::string::npos)
      << too_long.body;
  EXPECT_EQ(upload(remote_run("fine")), 201);
}

TEST_F(UnknownHardwareSiteTest, WithoutSuchRunsThePagesSayNothingAboutThem) {
  ASSERT_EQ(upload(test::site_result("a", "M1", "NVIDIA GeForce RTX 3090", 100)), 201);
  EXPECT_EQ(get("/").body.find("id=\"unknown-hardware\""), std::string::npos);
  EXPECT_EQ(get("/hardware").body.find("Unknown hardware"), std::string::npos);
  EXPECT_EQ(json::parse(get("/api/v1/hardware").body)["unknown_hardware_runs"], 0);
}

// docs/result-schema.json describes `hardware` and `client_hardware` with one "$defs" entry and
// keywords beside "$ref": both apply.
TEST(JsonSchemaRef, KeywordsBesideARefApplyToo) {
  auto schema = JsonSchema::parse(R"({
    "properties": {
      "a": {"type": "object", "$ref": "#/$defs/thing"},
      "b": {"type": ["object", "null"], "$ref": "#/$defs/thing"}
    },
    "$defs": {"thing": {"required": ["n"], "properties": {"n": {"type": "integer"}}}}
  })");
  ASSERT_TRUE(schema) << schema.error().message;
  auto violation = [&](const char* doc) {
    auto ok = schema->validate(json::parse(doc));
    return ok ? std::string() : ok.error().message;
  };
  EXPECT_EQ(violation(R"({"a": {"n": 1}, "b": null})"), "");
  EXPECT_EQ(violation(R"({"a": {"n": 1}, "b": {"n": 2}})"), "");
  EXPECT_EQ(violation(R"({"a": null})"), "$.a: expected object, got null null");
  EXPECT_EQ(violation(R"({"b": {"n": "x"}})"), "$.b.n: expected integer, got string \"x\"");
  EXPECT_EQ(violation(R"({"b": {}})"), "$.b: missing required field \"n\"");
  EXPECT_EQ(violation(R"({"b": 3})"), "$.b: expected object or null, got integer 3");
}

}  // namespace
}  // namespace sm::site
