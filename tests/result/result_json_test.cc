#include "result/result_json.h"

#include <gtest/gtest.h>

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
