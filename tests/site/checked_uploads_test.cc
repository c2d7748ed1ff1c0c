// Uploads checked before they are ranked (issue 15 part 1), through Site::handle: refusals
// naming the field and logged with the request id, implausible runs flagged and out of the
// default rankings, duplicates answered with the original id, hidden runs out of every page and
// listing, 5xx answers that name only the request id, and run pages that paginate their cells.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <mutex>

#include "result/result_json.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "store/sqlite_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

using nlohmann::json;

class CheckedUploadsTest : public ::testing::Test {
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
    config.log_line = [this](const std::string& line) {
      std::lock_guard lock(log_mutex_);
      log_.push_back(line);
    };
    auto site = Site::create(*store_, config, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  SiteResponse get(const std::string& target) {
    SiteRequest r;
    size_t q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = target.substr(q + 1);
    r.client = "127.0.0.1";
    return site_->handle(r);
  }

  SiteResponse post_body(const std::string& body) {
    SiteRequest r;
    r.method = HttpMethod::Post;
    r.path = "/api/v1/runs";
    r.body = body;
    r.client = "127.0.0.1";
    r.authorization = "Bearer " + token_;
    return site_->handle(r);
  }

  SiteResponse upload(const RunResult& result) { return post_body(to_json(result).dump()); }

  static std::string header(const SiteResponse& r, const std::string& name) {
    for (const auto& [k, v] : r.headers)
      if (k == name) return v;
    return "";
  }

  std::vector<std::string> ids(const std::string& target) {
    SiteResponse r = get(target);
    EXPECT_EQ(r.status, 200) << target << ": " << r.body;
    std::vector<std::string> out;
    const json body = json::parse(r.body);
    for (const auto& run : body["runs"]) out.push_back(run["run_id"]);
    return out;
  }

  // A run whose best cell is `factor` × the calculator's roofline (Qwen3.5-4B AWQ on one RTX 3090).
  static RunResult implausible_run(const std::string& id) {
    RunResult r = test::site_result(id, "Qwen3.5-4B-AWQ-4bit", "NVIDIA GeForce RTX 3090", 5000);
    return r;
  }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
  std::string token_;
  std::mutex log_mutex_;
  std::vector<std::string> log_;
};

TEST_F(CheckedUploadsTest, ARefusedUploadNamesTheFieldAndIsLoggedWithItsRequestId) {
  RunResult r = test::site_result("bad-total");
  r.decode[3].total_tok_s = *r.decode[3].total_tok_s * 1.5;
  SiteResponse resp = upload(r);
  ASSERT_EQ(resp.status, 400) << resp.body;
  EXPECT_EQ(json::parse(resp.body)["error"]["code"], "invalid_numbers");
  EXPECT_NE(resp.body.find("$.decode[3].total_tok_s"), std::string::npos) << resp.body;
  const std::string id = header(resp, "X-Request-Id");
  ASSERT_FALSE(id.empty());
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_NE(log_[0].find("request_id=" + id), std::string::npos) << log_[0];
  EXPECT_NE(log_[0].find("route=\"POST /api/v1/runs\""), std::string::npos) << log_[0];
  EXPECT_NE(log_[0].find("status=400"), std::string::npos) << log_[0];
  EXPECT_NE(log_[0].find("$.decode[3].total_tok_s"), std::string::npos) << log_[0];
  // A page that is fine is not logged.
  EXPECT_EQ(get("/").status, 200);
  EXPECT_EQ(log_.size(), 1u);
}

TEST_F(CheckedUploadsTest, ANumberTooLargeForADoubleIs400) {
  std::string body = to_json(test::site_result("huge")).dump();
  const std::string from = "\"measured_s\":30.0";
  size_t at = body.find(from);
  ASSERT_NE(at, std::string::npos) << body.substr(0, 300);
  body.replace(at, from.size(), "\"measured_s\":1e999");
  SiteResponse resp = post_body(body);
  EXPECT_EQ(resp.status, 400) << resp.body;
  EXPECT_EQ(json::parse(resp.body)["error"]["code"], "malformed_json");
}

TEST_F(CheckedUploadsTest, MoreThanAThousandDecodeCellsAreRefused) {
  RunResult r = test::site_result("many-cells");
  const DecodeCell cell = r.decode[0];
  r.decode.assign(1001, cell);
  SiteResponse resp = upload(r);
  EXPECT_EQ(resp.status, 400) << resp.body.substr(0, 300);
  EXPECT_NE(resp.body.find("$.decode"), std::string::npos) << resp.body.substr(0, 300);
}

TEST_F(CheckedUploadsTest, AnImplausibleRunIsAcceptedBadgedAndKeptOutOfDefaultRankings) {
  ASSERT_EQ(upload(test::site_result("plain", "Qwen3.5-4B-AWQ-4bit")).status, 201);
  SiteResponse resp = upload(implausible_run("too-fast"));
  ASSERT_EQ(resp.status, 201) << resp.body;
  const json body = json::parse(resp.body);
  EXPECT_NE(body["implausible"].get<std::string>().find("roofline"), std::string::npos) << resp.body;
  EXPECT_EQ(body["ranked"], false);
  EXPECT_EQ(ids("/api/v1/leaderboard"), std::vector<std::string>{"plain"});
  EXPECT_EQ(ids("/api/v1/leaderboard?flagged=include").size(), 2u);
  EXPECT_EQ(ids("/api/v1/runs").size(), 2u);  // listed, not ranked
  SiteResponse board = get("/");
  EXPECT_EQ(board.body.find("data-run-id=\"too-fast\""), std::string::npos);
  EXPECT_NE(board.body.find("id=\"flagged-unranked\""), std::string::npos);
  EXPECT_NE(get("/?flagged=include").body.find("data-run-id=\"too-fast\""), std::string::npos);
  SiteResponse runs = get("/runs");
  EXPECT_NE(runs.body.find("badge implausible"), std::string::npos);
  SiteResponse page = get("/runs/too-fast");
  EXPECT_NE(page.body.find("id=\"implausible\""), std::string::npos);
  // The group's best number comes from the plausible run only.
  json hw = json::parse(get("/api/v1/hardware").body)["hardware"];
  ASSERT_EQ(hw.size(), 1u);
  EXPECT_DOUBLE_EQ(hw[0]["best_single_stream_tok_s"].get<double>(), 180.0);
}

TEST_F(CheckedUploadsTest, ASyntheticModelRunIsMarkedAndUnranked) {
  ASSERT_EQ(upload(test::site_result("synthetic", "synth-small-q8_0.gguf")).status, 201);
  EXPECT_TRUE(ids("/api/v1/leaderboard").empty());
  json runs = json::parse(get("/api/v1/runs").body)["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["synthetic_model"], true);
  EXPECT_NE(get("/runs").body.find("badge synthetic"), std::string::npos);
}

TEST_F(CheckedUploadsTest, TheSameMeasurementsUnderANewIdAreAnsweredWithTheOriginal) {
  RunResult first = test::site_result("original");
  ASSERT_EQ(upload(first).status, 201);
  RunResult again = first;
  again.run_id = "renamed";
  again.submitted_by = "someone";
  SiteResponse resp = upload(again);
  ASSERT_EQ(resp.status, 200) << resp.body;
  const json body = json::parse(resp.body);
  EXPECT_EQ(body["status"], "exists");
  EXPECT_EQ(body["run_id"], "original");
  EXPECT_EQ(body["duplicate_of"], "original");
  EXPECT_EQ(header(resp, "Location"), "/runs/original");
  EXPECT_EQ(ids("/api/v1/runs"), std::vector<std::string>{"original"});
}

TEST_F(CheckedUploadsTest, AHiddenRunIsOutOfEveryPageAndListingUntilShownAgain) {
  ASSERT_EQ(upload(test::site_result("keep", "M1")).status, 201);
  ASSERT_EQ(upload(test::site_result("spam", "M2")).status, 201);
  ASSERT_EQ(store_->set_hidden("spam", true).value(), 1);
  EXPECT_EQ(ids("/api/v1/runs"), std::vector<std::string>{"keep"});
  EXPECT_EQ(ids("/api/v1/leaderboard"), std::vector<std::string>{"keep"});
  EXPECT_EQ(get("/api/v1/runs/spam").status, 404);
  EXPECT_EQ(get("/runs/spam").status, 404);
  EXPECT_EQ(get("/compare?run=keep&run=spam").status, 404);
  for (const char* page : {"/", "/runs", "/models", "/hardware?gpu=RTX%203090%2024GB", "/compare"})
    EXPECT_EQ(get(page).body.find("spam"), std::string::npos) << page;
  EXPECT_EQ(json::parse(get("/api/v1/models").body)["models"].size(), 1u);
  // Re-uploading it changes nothing: it is stored (and hidden).
  EXPECT_EQ(upload(test::site_result("spam", "M2")).status, 200);
  EXPECT_EQ(ids("/api/v1/runs").size(), 1u);
  ASSERT_EQ(store_->set_hidden("spam", false).value(), 1);
  EXPECT_EQ(ids("/api/v1/runs").size(), 2u);
  ASSERT_EQ(store_->delete_run("spam").value(), 1);
  EXPECT_EQ(get("/runs/spam").status, 404);
}

TEST_F(CheckedUploadsTest, AStoreFailureAnswersWithTheRequestIdOnlyAndLogsTheReason) {
  ASSERT_EQ(upload(test::site_result("a")).status, 201);
  {
    auto c = store::open_sqlite_connection(dir_.file("site.db"), store::SqliteSync::Normal);
    ASSERT_TRUE(c) << c.error().message;
    ASSERT_TRUE((*c)->execute("DROP TABLE runs", {}));
  }
  for (const char* target : {"/api/v1/runs", "/runs"}) {
    log_.clear();
    SiteResponse r = get(target);
    EXPECT_GE(r.status, 500) << target;
    EXPECT_EQ(r.body.find("no such table"), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find(dir_.path().string()), std::string::npos) << r.body;
    const std::string id = header(r, "X-Request-Id");
    EXPECT_NE(r.body.find(id), std::string::npos) << r.body;
    ASSERT_EQ(log_.size(), 1u) << target;
    EXPECT_NE(log_[0].find("request_id=" + id), std::string::npos) << log_[0];
    EXPECT_NE(log_[0].find("no such table"), std::string::npos) << log_[0];  // the reason, in the log only
  }
}

TEST_F(CheckedUploadsTest, AHugeRunPageShowsItsCellsAPageAtATime) {
  RunResult r = test::site_result("huge-run", "M1");
  r.decode.clear();
  r.settings.contexts.clear();
  r.settings.concurrency.clear();
  for (int64_t c = 1; c <= 12; ++c) r.settings.concurrency.push_back(c);
  for (int64_t i = 0; i < 30; ++i) {  // 30 contexts × 12 = 360 cells: two pages of at most 240
    const int64_t context = i * 1024;
    r.settings.contexts.push_back(context);
    for (int64_t c = 1; c <= 12; ++c) {
      DecodeCell cell;
      cell.context = context;
      cell.concurrency = c;
      cell.total_tok_s = 100.0 * static_cast<double>(c);
      cell.per_request_tok_s = 100.0;
      cell.output_tokens = 3000 * c;
      cell.measured_s = 30;
      cell.requests_started = c;
      r.decode.push_back(cell);
    }
  }
  ASSERT_EQ(upload(r).status, 201);
  SiteResponse first = get("/runs/huge-run");
  ASSERT_EQ(first.status, 200);
  EXPECT_NE(first.body.find("Cells: page 1 of 2"), std::string::npos);
  EXPECT_NE(first.body.find("cells=2"), std::string::npos);
  EXPECT_EQ(first.body.find("29K"), std::string::npos);  // the last context row is on page 2
  SiteResponse second = get("/runs/huge-run?cells=2");
  ASSERT_EQ(second.status, 200);
  EXPECT_NE(second.body.find("Cells: page 2 of 2"), std::string::npos);
  EXPECT_NE(second.body.find("29K"), std::string::npos);
  EXPECT_EQ(get("/runs/huge-run?cells=99").status, 200);  // clamped to the last page
  // A reader's own prices stay on as they page.
  SiteResponse priced = get("/runs/huge-run?power_price=0.3&currency=EUR");
  ASSERT_EQ(priced.status, 200);
  EXPECT_NE(priced.body.find("href=\"/runs/huge-run?power_price=0.3&amp;currency=EUR&amp;cells=2\""), std::string::npos);
  // Compare pages the same rows of every run.
  ASSERT_EQ(upload(test::site_result("small", "M2")).status, 201);
  SiteResponse compare = get("/compare?run=huge-run&run=small");
  ASSERT_EQ(compare.status, 200);
  EXPECT_NE(compare.body.find("Cells: page 1 of 2"), std::string::npos);
}

}  // namespace
}  // namespace sm::site
