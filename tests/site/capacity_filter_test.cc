// Users at a speed on the site (issue 34, point 1): the store keeps each run's users at the site's
// speed floors per context, from the cells the rankings count; listings read the users at one
// floor and context as a column and keep the runs serving at least so many there.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>

#include "result/result_json.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "store/run_summary.h"
#include "store/sqlite_store.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

// A run whose 32K cells give these per-request rates at 1, 2, 4, ... requests (total = rate × n).
RunResult run_with_32k(const std::string& id, const std::string& gpu, std::vector<double> per_request, bool loops = false) {
  RunResult r = test::site_result(id, "Qwen3.5-4B-AWQ-4bit", gpu);
  int64_t n = 1;
  for (double rate : per_request) {
    DecodeCell c;
    c.context = 32768;
    c.concurrency = n;
    c.per_request_tok_s = rate;
    c.total_tok_s = rate * static_cast<double>(n);
    if (loops) {
      c.output_check = OutputCheckSummary{};
      c.output_check->requests = n;
      c.output_check->repeat = n;
      c.output_check->verdict = "loop";
    }
    r.decode.push_back(c);
    n *= 2;
  }
  return r;
}

store::RunRecord record_of(const RunResult& r, const std::string& uploaded_at) {
  store::RunRecord rec;
  rec.summary = store::summarize_run(r);
  rec.summary.uploaded_at = uploaded_at;
  rec.result_json = to_json(r).dump();
  rec.content_sha256 = site::sha256_hex(rec.result_json);
  return rec;
}

class CapacityStore : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("results.db"), {.pool_size = 2});
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    // a: 40, 30, 26, 22, 12 at 1..16: 20 tok/s lies between 8 (22) and 16 (12), total rising
    //    (176 -> 192): 8 + 8 x (22-20)/(22-12) = 9.6 -> 9 users, interpolated.
    ASSERT_TRUE(store_->put_run(record_of(run_with_32k("a", "NVIDIA H100", {40, 30, 26, 22, 12}), "2026-12-03T10:00:01.000Z")));
    // b: every measured concurrency (1, 2) meets 20 tok/s: at least 2.
    ASSERT_TRUE(store_->put_run(record_of(run_with_32k("b", "NVIDIA H100", {25, 21}), "2026-12-03T10:00:02.000Z")));
    // c: no 32K cell.
    ASSERT_TRUE(store_->put_run(record_of(test::site_result("c"), "2026-12-03T10:00:03.000Z")));
    // d: fast at 32K but its output loops: its speed is not the model's.
    ASSERT_TRUE(store_->put_run(record_of(run_with_32k("d", "NVIDIA H100", {60, 55, 50, 45}, true), "2026-12-03T10:00:04.000Z")));
  }

  std::string ids(const store::RunFilter& filter) {
    auto page = store_->list_runs(filter, store::RunOrder::Newest, {});
    EXPECT_TRUE(page) << page.error().message;
    std::string out;
    if (page)
      for (const auto& r : page->runs) out += r.run_id;
    return out;
  }

  test::TempDir dir_;
  std::unique_ptr<store::ResultStore> store_;
};

TEST_F(CapacityStore, TheColumnReadsUsersAtTheFloorAndContext) {
  auto page = store_->list_runs({}, store::RunOrder::Newest, {});
  ASSERT_TRUE(page) << page.error().message;
  ASSERT_EQ(page->runs.size(), 4u);
  std::map<std::string, const store::RunSummary*> by_id;
  for (const auto& r : page->runs) by_id[r.run_id] = &r;
  EXPECT_EQ(by_id["a"]->users_at, 9);
  EXPECT_EQ(by_id["a"]->users_at_basis, "interpolated");
  EXPECT_EQ(by_id["b"]->users_at, 2);
  EXPECT_EQ(by_id["b"]->users_at_basis, "at_least");
  EXPECT_FALSE(by_id["c"]->users_at);
  EXPECT_FALSE(by_id["d"]->users_at);
  // Another floor: at 10 tok/s every one of a's concurrencies meets it.
  page = store_->list_runs({.users_floor_tok_s = 10}, store::RunOrder::Newest, {});
  ASSERT_TRUE(page);
  for (const auto& r : page->runs)
    if (r.run_id == "a") {
      EXPECT_EQ(r.users_at, 16);
    }
}

TEST_F(CapacityStore, TheFilterKeepsBoxesServingAtLeastSoManyUsers) {
  EXPECT_EQ(ids({}), "dcba");
  EXPECT_EQ(ids({.min_users = 8}), "a");       // 8 users at 20 tok/s at 32K
  EXPECT_EQ(ids({.min_users = 2}), "ba");      // b: at least 2
  EXPECT_EQ(ids({.min_users = 10}), "");       // a serves 9
  EXPECT_EQ(ids({.users_floor_tok_s = 10, .min_users = 16}), "a");
  EXPECT_EQ(ids({.users_context = 16384, .min_users = 1}), "dcba");  // site_result's 16K cells (d's do not loop)
  auto page = store_->list_runs({.min_users = 2}, store::RunOrder::Newest, {});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->total, 2);
  // A deleted run leaves nothing behind to match.
  ASSERT_TRUE(store_->delete_run("a"));
  EXPECT_EQ(ids({.min_users = 8}), "");
}

TEST(CapacitySite, LeaderboardColumnAndFilter) {
  test::TempDir dir;
  auto store = store::open_store("sqlite:" + dir.file("results.db"), {.pool_size = 2});
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE((*store)->put_run(record_of(run_with_32k("a", "NVIDIA H100", {40, 30, 26, 22, 12}), "2026-12-03T10:00:01.000Z")));
  ASSERT_TRUE((*store)->put_run(record_of(run_with_32k("b", "NVIDIA H100", {25, 21}), "2026-12-03T10:00:02.000Z")));
  auto site = site::Site::create(**store, {.upload_rate_per_min = 0});
  ASSERT_TRUE(site) << site.error().message;
  auto get = [&](const std::string& path, const std::string& query) {
    site::SiteRequest request;
    request.method = site::HttpMethod::Get;
    request.path = path;
    request.query = query;
    request.host = "results.test:8080";
    request.client = "127.0.0.1";
    return (*site)->handle(request);
  };
  auto runs = get("/runs", "");
  ASSERT_EQ(runs.status, 200);
  EXPECT_NE(runs.body.find("Users at 20 tok/s"), std::string::npos);
  EXPECT_NE(runs.body.find("≈9"), std::string::npos);
  EXPECT_NE(runs.body.find("≥2"), std::string::npos);
  EXPECT_NE(runs.body.find("name=\"min_users\""), std::string::npos);
  auto filtered = get("/runs", "users_at=20&min_users=8&context=32768");
  ASSERT_EQ(filtered.status, 200);
  EXPECT_NE(filtered.body.find("data-run-id=\"a\""), std::string::npos);
  EXPECT_EQ(filtered.body.find("data-run-id=\"b\""), std::string::npos);
  auto api = get("/api/v1/runs", "min_users=8");
  ASSERT_EQ(api.status, 200);
  EXPECT_NE(api.body.find("\"a\""), std::string::npos);
  EXPECT_EQ(api.body.find("\"run_id\":\"b\""), std::string::npos);
  // The column's figure is in the API's summaries too (run a serves ≈9 at 20 tok/s, 32K).
  const auto listed = nlohmann::json::parse(get("/api/v1/runs", "").body);
  for (const auto& r : listed["runs"]) {
    if (r["run_id"] == "a") {
      EXPECT_EQ(r["users_at"], 9);
      EXPECT_EQ(r["users_at_basis"], "interpolated");
    } else {
      EXPECT_EQ(r["users_at_basis"], "at_least");
    }
  }
  EXPECT_EQ(get("/runs", "users_at=15").status, 400);  // not one of the floors the store keeps
  EXPECT_EQ(get("/runs", "min_users=lots").status, 400);
}

TEST(CapacitySite, RunAndComparePagesShowTheParetoChart) {
  test::TempDir dir;
  auto store = store::open_store("sqlite:" + dir.file("results.db"), {.pool_size = 2});
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE((*store)->put_run(record_of(run_with_32k("a", "NVIDIA H100", {40, 30, 26, 22, 12}), "2026-12-03T10:00:01.000Z")));
  ASSERT_TRUE((*store)->put_run(record_of(run_with_32k("b", "NVIDIA H100", {25, 21}), "2026-12-03T10:00:02.000Z")));
  auto site = site::Site::create(**store, {.upload_rate_per_min = 0});
  ASSERT_TRUE(site) << site.error().message;
  site::SiteRequest request;
  request.method = site::HttpMethod::Get;
  request.host = "results.test:8080";
  request.client = "127.0.0.1";
  request.path = "/runs/a";
  auto run = (*site)->handle(request);
  ASSERT_EQ(run.status, 200);
  EXPECT_NE(run.body.find("<figure id=\"pareto-chart\""), std::string::npos);
  EXPECT_LT(run.body.find("id=\"pareto-chart\""), run.body.find("id=\"decode\""));
  request.path = "/compare";
  request.query = "run=a&run=b";
  auto compare = (*site)->handle(request);
  ASSERT_EQ(compare.status, 200);
  const size_t figure = compare.body.find("<figure id=\"pareto-chart\"");
  ASSERT_NE(figure, std::string::npos);
  EXPECT_NE(compare.body.find("<g class=\"series c1", figure), std::string::npos);  // run B's lines
}

}  // namespace
}  // namespace sm
