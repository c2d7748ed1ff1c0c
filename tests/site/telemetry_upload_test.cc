// The upload checks of the telemetry fields (data/site/upload-rules.json over the result
// schema): power, energy, tokens per joule and clocks cannot be negative or non-finite, the
// throttle verdict is one of the schema's, and the lists and texts are bounded. Every refusal
// is a 400 naming the field.
#include <gtest/gtest.h>

#include <limits>

#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "site/json_schema.h"
#include "site/site.h"
#include "site/site_data.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

using nlohmann::json;

RunResult with_telemetry(const std::string& id, double base_tokens_per_joule) {
  RunResult r = test::site_result(id);
  test::add_gpu_telemetry(r, base_tokens_per_joule);
  return r;
}

class TelemetryUploadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    auto t = generate_upload_token();
    ASSERT_TRUE(t);
    token_ = t->secret;
    ASSERT_TRUE(store_->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
    auto site = Site::create(*store_, {.upload_rate_per_min = 0}, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  SiteResponse post(const std::string& body) {
    SiteRequest r;
    r.method = HttpMethod::Post;
    r.path = "/api/v1/runs";
    r.body = body;
    r.client = "127.0.0.1";
    r.authorization = "Bearer " + token_;
    return site_->handle(r);
  }

  // The error message of a refused upload, "" when it was stored.
  std::string refusal(const json& result) {
    SiteResponse r = post(result.dump());
    if (r.status == 201) return "";
    EXPECT_EQ(r.status, 400) << r.body;
    return json::parse(r.body)["error"]["message"].get<std::string>();
  }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
  std::string token_;
};

TEST_F(TelemetryUploadTest, RefusesImpossibleTelemetryNamingTheField) {
  auto doc = [] { return to_json(with_telemetry("t", 1.0)); };
  json j = doc();
  j["decode"][2]["gpu_power_w"] = -5.0;
  EXPECT_NE(refusal(j).find("$.decode[2].gpu_power_w: -5.0 is below the minimum 0"), std::string::npos) << refusal(j);
  j = doc();
  j["prefill"][0]["gpu_energy_j"] = -1;
  EXPECT_NE(refusal(j).find("$.prefill[0].gpu_energy_j: -1 is below the minimum 0"), std::string::npos) << refusal(j);
  j = doc();
  j["decode"][0]["tokens_per_joule"] = -0.5;
  EXPECT_NE(refusal(j).find("$.decode[0].tokens_per_joule: -0.5 is below the minimum 0"), std::string::npos);
  j = doc();
  j["decode"][3]["gpu_sm_clock_mhz"] = -1;
  EXPECT_NE(refusal(j).find("$.decode[3].gpu_sm_clock_mhz"), std::string::npos);
  j = doc();
  j["decode"][1]["throttle"] = "melting";
  EXPECT_NE(refusal(j).find("$.decode[1].throttle: \"melting\" is not one of: \"\", ok, power_capped"), std::string::npos)
      << refusal(j);
  j = doc();
  j["decode"][1]["tokens_per_joule"] = "lots";
  EXPECT_NE(refusal(j).find("$.decode[1].tokens_per_joule: expected number or null"), std::string::npos);
  j = doc();
  j["telemetry"]["gpus"] = json::array();
  for (int i = 0; i < 257; ++i) j["telemetry"]["gpus"].push_back({{"name", "x"}});
  EXPECT_NE(refusal(j).find("$.telemetry.gpus: more than 256 items"), std::string::npos) << refusal(j);
  j = doc();
  j["telemetry"]["gpu_unavailable"] = std::string(1001, 'x');
  EXPECT_NE(refusal(j).find("$.telemetry.gpu_unavailable: longer than 1000 characters"), std::string::npos);

  // JSON text has no NaN or infinity; a number too large for a double is malformed JSON (not a
  // 500), named by its text.
  std::string text = doc().dump();
  const std::string energy = "\"gpu_energy_j\":";
  const size_t energy_at = text.find(energy);
  ASSERT_NE(energy_at, std::string::npos);
  text.replace(energy_at, text.find_first_of(",}", energy_at) - energy_at, "\"gpu_energy_j\":1e999");
  SiteResponse overflow = post(text);
  EXPECT_EQ(overflow.status, 400);
  EXPECT_NE(overflow.body.find("\"code\":\"malformed_json\""), std::string::npos) << overflow.body;
  EXPECT_NE(overflow.body.find("malformed JSON: number overflow parsing '1e999'"), std::string::npos) << overflow.body;

  // Null is a figure the runner may write; none of the above was stored. A 0 tokens per joule
  // beside a window's tokens and energy is not (issue 30: the figure must be tokens ÷ energy).
  EXPECT_EQ(store_->list_runs({}, store::RunOrder::Newest, {}).value().total, 0);
  j = doc();
  j["decode"][0]["tokens_per_joule"] = 0;
  EXPECT_NE(refusal(j).find("$.decode[0].telemetry.tokens_per_joule: 0 disagrees with tokens / gpu_energy_j"),
            std::string::npos);
  j = doc();
  j["decode"][0]["tokens_per_joule"] = nullptr;
  j["decode"][1]["gpu_power_w"] = nullptr;
  j["decode"][2]["throttle"] = "";
  EXPECT_EQ(refusal(j), "");
}

// The rules refuse a non-finite figure however the document was made (in memory, NaN and
// infinity exist), naming it.
TEST(UploadRulesTelemetry, ANonFiniteFigureIsRefusedByName) {
  auto rules = JsonSchema::parse(site_data_file("upload-rules.json").value_or(""));
  ASSERT_TRUE(rules) << rules.error().message;
  json j = to_json(with_telemetry("t", 1.0));
  ASSERT_TRUE(rules->validate(j));
  j["decode"][0]["tokens_per_joule"] = std::numeric_limits<double>::infinity();
  auto v = rules->validate(j);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message, "$.decode[0].tokens_per_joule: not a finite number");
  j = to_json(with_telemetry("t", 1.0));
  j["prefill"][0]["gpu_power_w"] = std::numeric_limits<double>::quiet_NaN();
  v = rules->validate(j);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message, "$.prefill[0].gpu_power_w: not a finite number");
}

}  // namespace
}  // namespace sm::site
