#include "result/result_json.h"

#include <gtest/gtest.h>

#include "site/json_schema.h"
#include "site/site_data.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

RunResult sample() {
  RunResult r;
  r.run_id = "r1";
  r.engine.kind = "vllm";
  r.engine.kv_capacity_tokens = 530000;
  r.settings.contexts = {0, 16384};
  r.prefill.push_back({8192, CellStatus::Valid, 10600.0, 773.0, 8192, 0, true, ""});
  DecodeCell c;
  c.context = 0;
  c.concurrency = 1;
  c.total_tok_s = 181.7;
  c.ttft_ms = 24;
  c.warnings = {"w"};
  r.decode.push_back(c);
  DecodeCell over;
  over.context = 0;
  over.concurrency = 128;
  over.status = CellStatus::OverCapacity;
  r.decode.push_back(over);
  return r;
}

TEST(ResultJson, RoundTrip) {
  RunResult r = sample();
  auto j = to_json(r);
  EXPECT_EQ(j["decode"][0]["total_tok_s"], 181.7);
  EXPECT_TRUE(j["decode"][1]["total_tok_s"].is_null());
  EXPECT_EQ(j["decode"][1]["status"], "over_capacity");
  EXPECT_EQ(j["prefill"][0]["prompt_tok_s"], 10600.0);
  auto back = result_from_json(j);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(to_json(*back), j);
}

TEST(ResultJson, RejectsOtherSchemaVersionAndBadStatus) {
  auto j = to_json(sample());
  j["schema_version"] = 99;
  EXPECT_FALSE(result_from_json(j).has_value());
  j = to_json(sample());
  j["decode"][0]["status"] = "bogus";
  EXPECT_FALSE(result_from_json(j).has_value());
  j = to_json(sample());
  j["decode"][0]["total_tok_s"] = "fast";
  EXPECT_FALSE(result_from_json(j).has_value());
}

TEST(ResultJson, RetrievalChecksRoundTripAndMatchTheSchema) {
  RunResult r = sample();
  EXPECT_FALSE(to_json(r).contains("retrieval"));  // runs without the check keep their files as they were
  EXPECT_FALSE(to_json(r)["settings"].contains("retrieval_check"));
  r.settings.retrieval_check = true;
  RetrievalCheck exact;
  exact.context = 16384;
  exact.depth = 0.25;
  exact.verdict = RetrievalVerdict::Exact;
  exact.prompt_tokens = 16384;
  exact.fact_found = true;
  exact.finish_reason = "stop";
  exact.excerpt = " The passkey is 4821937. The vault is in Lisbon.";
  RetrievalCheck wrong = exact;
  wrong.context = 65536;
  wrong.verdict = RetrievalVerdict::Wrong;
  wrong.fact_found = false;
  RetrievalCheck na;
  na.context = 131072;
  na.verdict = RetrievalVerdict::NotApplicable;
  r.retrieval = {exact, wrong, na};
  auto j = to_json(r);
  EXPECT_EQ(j["settings"]["retrieval_check"], true);
  ASSERT_EQ(j["retrieval"].size(), 3u);
  EXPECT_EQ(j["retrieval"][1]["verdict"], "wrong");
  EXPECT_EQ(j["retrieval"][2]["verdict"], "not_applicable");
  EXPECT_TRUE(j["retrieval"][2]["prompt_tokens"].is_null());
  auto back = result_from_json(j);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(to_json(*back), j);
  EXPECT_EQ(back->retrieval[1].verdict, RetrievalVerdict::Wrong);

  const auto schema = site::JsonSchema::parse(site::site_data_file("result-schema.json").value());
  ASSERT_TRUE(schema.has_value());
  EXPECT_TRUE(schema->validate(j).has_value());
  auto bad = j;
  bad["retrieval"][0]["verdict"] = "maybe";
  EXPECT_FALSE(schema->validate(bad).has_value());
  EXPECT_FALSE(result_from_json(bad).has_value());
}

// run --slo: the targets in settings, a cell's judgement and each context's search come back as
// written and match the schema; files without them stay as they were.
TEST(ResultJson, SloSearchRoundTripsAndMatchesTheSchema) {
  RunResult r = sample();
  EXPECT_FALSE(to_json(r).contains("slo_search"));
  EXPECT_FALSE(to_json(r)["settings"].contains("slo"));
  EXPECT_FALSE(to_json(r)["decode"][0].contains("slo"));
  SloTargets targets;
  targets.ttft_ms = 2000;
  targets.tpot_ms = 50;
  targets.percentile = 95;
  r.settings.slo = targets;
  r.settings.slo_contexts = {16384};
  r.settings.slo_max_probes = 6;
  SloJudgement judged;
  judged.meets = true;
  judged.requests = 20;
  judged.met = 19;
  judged.met_fraction = 0.95;
  judged.ttft_ms = 812.5;
  judged.tpot_ms = 41.25;
  judged.achieved_rps = 1.5;
  judged.goodput_rps = 1.25;
  judged.goodput_tok_s = 310.0;
  r.decode[0].slo = judged;
  SloSearch search;
  search.context = 0;
  search.basis = "found";
  search.concurrency = 6;
  search.failing_concurrency = 7;
  search.passed_above = 64;
  search.max_concurrency = 100;
  search.probes = 2;
  search.points.push_back({1, "matrix", CellStatus::Valid, judged, ""});
  search.points.push_back({6, "probe", CellStatus::Valid, judged, ""});
  search.points.push_back({7, "probe", CellStatus::Error, std::nullopt, "3 of 9 requests failed"});
  r.slo_search = {search};
  const auto j = to_json(r);
  EXPECT_EQ(j["settings"]["slo"]["percentile"], 95.0);
  EXPECT_EQ(j["decode"][0]["slo"]["met"], 19);
  EXPECT_EQ(j["slo_search"][0]["basis"], "found");
  EXPECT_TRUE(j["slo_search"][0]["points"][2]["judgement"].is_null());
  auto back = result_from_json(j);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(to_json(*back), j);
  EXPECT_EQ(back->settings.slo->tpot_ms, 50.0);
  EXPECT_EQ(back->slo_search[0].points[2].error, "3 of 9 requests failed");
  EXPECT_EQ(slo_answer_point(back->slo_search[0])->source, "probe");

  const auto schema = site::JsonSchema::parse(site::site_data_file("result-schema.json").value());
  ASSERT_TRUE(schema.has_value());
  EXPECT_TRUE(schema->validate(j).has_value()) << schema->validate(j).error().message;
  auto bad = j;
  bad["slo_search"][0]["basis"] = "probably";
  EXPECT_FALSE(schema->validate(bad).has_value());
  auto bad_percentile = j;
  bad_percentile["settings"]["slo"]["percentile"] = 0;
  EXPECT_FALSE(schema->validate(bad_percentile).has_value());
  auto bad_status = j;
  bad_status["slo_search"][0]["points"][0]["status"] = "fine";
  EXPECT_FALSE(result_from_json(bad_status).has_value());
}

TEST(ResultJson, RetrievalVerdictNames) {
  for (auto v : {RetrievalVerdict::Exact, RetrievalVerdict::NearMiss, RetrievalVerdict::Wrong,
                 RetrievalVerdict::Truncated, RetrievalVerdict::NotApplicable, RetrievalVerdict::Error})
    EXPECT_EQ(parse_retrieval_verdict(to_string(v)), v);
  EXPECT_TRUE(retrieval_failed(RetrievalVerdict::NearMiss));
  EXPECT_TRUE(retrieval_failed(RetrievalVerdict::Wrong));
  EXPECT_TRUE(retrieval_failed(RetrievalVerdict::Truncated));
  EXPECT_FALSE(retrieval_failed(RetrievalVerdict::Exact));
  EXPECT_FALSE(retrieval_failed(RetrievalVerdict::NotApplicable));
  EXPECT_FALSE(retrieval_failed(RetrievalVerdict::Error));
}

TEST(ResultJson, AtomicWriteReplacesWholeFile) {
  test::TempDir dir;
  std::string path = dir.file("result.json");
  ASSERT_TRUE(write_result_file(path, sample()).has_value());
  auto r = read_result_file(path);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->decode.size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_FALSE(write_file_atomic(dir.file("missing/x.json"), "x").has_value());
}

}  // namespace
}  // namespace sm
