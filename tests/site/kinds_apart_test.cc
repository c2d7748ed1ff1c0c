// Kinds never mix by accident (issue 15 part 2): measured runs by default on the leaderboard,
// hardware and model pages, predicted and simulated in tabs of their own, a badge for every
// kind, `engine=sim` finding simulated runs, and compare warning across kinds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

using nlohmann::json;

class KindsApartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    auto t = generate_upload_token();
    ASSERT_TRUE(t);
    ASSERT_TRUE(store_->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
    SiteConfig config;
    config.upload_rate_per_min = 0;
    config.log_line = [](const std::string&) {};
    auto site = Site::create(*store_, config, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
    for (auto [id, kind] : {std::pair{"meas", "measured"}, {"pred", "predicted"}, {"simu", "simulated"}}) {
      SiteRequest r;
      r.method = HttpMethod::Post;
      r.path = "/api/v1/runs";
      r.authorization = "Bearer " + t->secret;
      r.body = to_json(test::site_result(id, std::string("Model-") + id, "NVIDIA GeForce RTX 3090", 180, 8783.0, kind)).dump();
      SiteResponse resp = site_->handle(r);
      ASSERT_EQ(resp.status, 201) << resp.body;
    }
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
    const json body = json::parse(r.body);
    for (const auto& run : body["runs"]) out.push_back(run["run_id"]);
    std::sort(out.begin(), out.end());
    return out;
  }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
};

TEST_F(KindsApartTest, TheLeaderboardRanksMeasuredRunsAndGivesTheOtherKindsTabs) {
  EXPECT_EQ(ids("/api/v1/leaderboard"), std::vector<std::string>{"meas"});
  EXPECT_EQ(ids("/api/v1/leaderboard?kind=predicted"), std::vector<std::string>{"pred"});
  EXPECT_EQ(ids("/api/v1/leaderboard?kind=all"), (std::vector<std::string>{"meas", "pred", "simu"}));
  EXPECT_EQ(get("/api/v1/leaderboard?kind=guessed").status, 400);
  const std::string board = get("/").body;
  EXPECT_NE(board.find("data-run-id=\"meas\""), std::string::npos);
  EXPECT_EQ(board.find("data-run-id=\"pred\""), std::string::npos);
  EXPECT_EQ(board.find("data-run-id=\"simu\""), std::string::npos);
  EXPECT_NE(board.find("class=\"tab measured current\""), std::string::npos) << board;
  EXPECT_NE(board.find("href=\"/?kind=simulated\""), std::string::npos);
  const std::string simulated = get("/?kind=simulated").body;
  EXPECT_NE(simulated.find("data-run-id=\"simu\""), std::string::npos);
  EXPECT_EQ(simulated.find("data-run-id=\"meas\""), std::string::npos);
  // The run list shows every kind, each with its own badge.
  const std::string runs = get("/runs").body;
  for (const char* badge : {"badge measured", "badge predicted", "badge simulated"})
    EXPECT_NE(runs.find(badge), std::string::npos) << badge;
}

TEST_F(KindsApartTest, HardwareAndModelPagesShowMeasuredRunsByDefault) {
  const std::string models = get("/models").body;
  EXPECT_NE(models.find("Model-meas"), std::string::npos);
  EXPECT_EQ(models.find("Model-pred"), std::string::npos);
  EXPECT_NE(get("/models?kind=predicted").body.find("Model-pred"), std::string::npos);
  const std::string gpu = get("/hardware?gpu=RTX%203090%2024GB").body;
  EXPECT_NE(gpu.find("data-run-id=\"meas\""), std::string::npos);
  EXPECT_EQ(gpu.find("data-run-id=\"simu\""), std::string::npos);
  EXPECT_NE(get("/hardware?gpu=RTX%203090%2024GB&kind=simulated").body.find("data-run-id=\"simu\""), std::string::npos);
  json hw = json::parse(get("/api/v1/hardware?kind=measured").body)["hardware"];
  ASSERT_EQ(hw.size(), 1u);
  EXPECT_EQ(hw[0]["runs"], 1);
  EXPECT_EQ(json::parse(get("/api/v1/hardware").body)["hardware"][0]["runs"], 3);
}

TEST_F(KindsApartTest, EngineSimFindsTheSimulatedRuns) {
  EXPECT_EQ(ids("/api/v1/runs?engine=sim"), std::vector<std::string>{"simu"});
  EXPECT_EQ(ids("/api/v1/runs?engine=vllm"), (std::vector<std::string>{"meas", "pred"}));
}

TEST_F(KindsApartTest, CompareWarnsAcrossKindsButNotWithinOne) {
  const std::string mixed = get("/compare?run=meas&run=pred").body;
  EXPECT_NE(mixed.find("id=\"mixed-kinds\""), std::string::npos);
  EXPECT_NE(mixed.find("Measured, Predicted"), std::string::npos);  // the kinds by their tab names
  EXPECT_EQ(get("/compare?run=meas&run=meas").body.find("id=\"mixed-kinds\""), std::string::npos);
}

}  // namespace
}  // namespace sm::site
