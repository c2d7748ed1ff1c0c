// The calculator page and API put the evidence beside a prediction (issue 13 part 4): the
// measured runs in the store of the same GPU, model and engine, and the calibration corpus rows
// of that setup, each with the calculator's figure for it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "calc/catalog.h"
#include "calc/corpus.h"
#include "result/result_json.h"
#include "site/calc_evidence.h"
#include "site/site.h"
#include "site/site_data.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

using nlohmann::json;

class CalcEvidenceTest : public ::testing::Test {
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
    config.calc_rate_per_min = 0;
    config.log_line = [](const std::string&) {};
    auto site = Site::create(*store_, config, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  SiteResponse handle(HttpMethod method, const std::string& target, const std::string& body = "") {
    SiteRequest r;
    r.method = method;
    size_t q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = target.substr(q + 1);
    r.body = body;
    r.client = "127.0.0.1";
    if (method == HttpMethod::Post) r.authorization = "Bearer " + token_;
    return site_->handle(r);
  }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
  std::string token_;
};

TEST_F(CalcEvidenceTest, MeasuredRunsOfTheSameGpuModelAndEngineStandBesideThePrediction) {
  // Same GPU, model and engine (another quantisation still counts); then other GPU, other engine.
  RunResult same = test::site_result("same-setup", "Qwen/Qwen3.5-4B", "NVIDIA GeForce RTX 3090");
  RunResult other_gpu = test::site_result("other-gpu", "Qwen/Qwen3.5-4B", "NVIDIA GeForce RTX 4090");
  RunResult other_engine = test::site_result("other-engine", "Qwen/Qwen3.5-4B", "NVIDIA GeForce RTX 3090");
  other_engine.engine.kind = "sglang";
  RunResult predicted = test::site_result("a-prediction", "Qwen/Qwen3.5-4B", "NVIDIA GeForce RTX 3090", 180, 8783.0,
                                          "predicted");
  for (const RunResult* r : {&same, &other_gpu, &other_engine, &predicted})
    ASSERT_EQ(handle(HttpMethod::Post, "/api/v1/runs", to_json(*r).dump()).status, 201);

  SiteResponse page = handle(HttpMethod::Get, "/calc?gpu=rtx3090&model=qwen3.5-4b&quant=awq-4bit&engine=vllm&contexts=0&concurrency=1,2&prefill=none");
  ASSERT_EQ(page.status, 200) << page.body.substr(0, 500);
  const size_t table = page.body.find("id=\"evidence-runs\"");
  ASSERT_NE(table, std::string::npos) << page.body.substr(page.body.find("id=\"evidence\""), 600);
  EXPECT_NE(page.body.find("data-run-id=\"same-setup\"", table), std::string::npos);
  for (const char* absent : {"other-gpu", "other-engine", "a-prediction"})
    EXPECT_EQ(page.body.find(std::string("data-run-id=\"") + absent + "\"", table), std::string::npos) << absent;
  EXPECT_NE(page.body.find("badge measured", table), std::string::npos);

  json calc = {{"gpu", "rtx3090"}, {"model", "qwen3.5-4b"}, {"quant", "awq-4bit"}, {"engine", "vllm"},
               {"contexts", "0"}, {"concurrency", "1,2"}, {"prefill_contexts", "none"}};
  SiteResponse api = handle(HttpMethod::Post, "/api/v1/calc", calc.dump());
  ASSERT_EQ(api.status, 200) << api.body.substr(0, 300);
  const json runs = json::parse(api.body)["evidence"]["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["run_id"], "same-setup");
  // The run's single-stream cell (context 0, one request) is a cell of the prediction.
  EXPECT_GT(runs[0]["predicted_single_stream_tok_s"].get<double>(), 0.0);
}

TEST_F(CalcEvidenceTest, CorpusRowsOfTheSetupStandBesideThePredictionWithTheirSource) {
  auto csv = site_data_file("measurements.csv");
  ASSERT_TRUE(csv) << "the corpus is embedded in the site";
  auto rows = calc::parse_corpus_csv(*csv);
  ASSERT_TRUE(rows) << rows.error().message;
  auto catalog = calc::Catalog::builtin();
  ASSERT_TRUE(catalog);
  const auto cases = calc::map_corpus(*rows, *catalog);
  const calc::CorpusCase* pick = nullptr;
  for (const auto& c : cases)
    if (c.usable && c.setup.gpus == 1) {
      pick = &c;
      break;
    }
  ASSERT_NE(pick, nullptr) << "the corpus has a usable single-GPU row";
  const std::string target = "/calc?gpu=" + pick->setup.gpu.id + "&model=" + pick->setup.model.id +
                             "&quant=" + pick->setup.quant.id + "&engine=" + pick->setup.engine.id +
                             "&contexts=0&concurrency=1&prefill=none";
  SiteResponse page = handle(HttpMethod::Get, target);
  ASSERT_EQ(page.status, 200) << target << "\n" << page.body.substr(0, 800);
  EXPECT_NE(page.body.find("id=\"evidence-runs-none\""), std::string::npos);  // nothing uploaded
  const size_t table = page.body.find("id=\"evidence-corpus\"");
  ASSERT_NE(table, std::string::npos);
  EXPECT_NE(page.body.find("data-corpus-id=\"" + pick->row.id + "\"", table), std::string::npos);
  EXPECT_NE(page.body.find(">" + pick->row.source_id + "</a>", table), std::string::npos) << "linked to its source";

  json calc = {{"gpu", pick->setup.gpu.id}, {"model", pick->setup.model.id}, {"quant", pick->setup.quant.id},
               {"engine", pick->setup.engine.id}, {"contexts", "0"}, {"concurrency", "1"}, {"prefill_contexts", "none"}};
  SiteResponse api = handle(HttpMethod::Post, "/api/v1/calc", calc.dump());
  ASSERT_EQ(api.status, 200) << api.body.substr(0, 300);
  bool found = false;
  const json answer = json::parse(api.body);
  for (const auto& row : answer["evidence"]["corpus"]) {
    if (row["id"] != pick->row.id) continue;
    found = true;
    EXPECT_DOUBLE_EQ(row["value"].get<double>(), pick->row.value);
    EXPECT_DOUBLE_EQ(row["predicted"].get<double>(), calc::predict_corpus_value(*pick, pick->setup.engine));
    EXPECT_TRUE(row["source_url"].is_string());
  }
  EXPECT_TRUE(found) << pick->row.id;
}

TEST(CorpusSources, ReadsQuotedFields) {
  const auto sources = parse_corpus_sources(
      "source_id,url,title,date\nS01,https://example.org/a,\"A, quoted \"\"title\"\"\",2024-05\nS02,https://example.org/b,B,2025\n");
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_EQ(sources[0].first, "S01");
  EXPECT_EQ(sources[0].second.title, "A, quoted \"title\"");
  EXPECT_EQ(sources[1].second.url, "https://example.org/b");
}

}  // namespace
}  // namespace sm::site
