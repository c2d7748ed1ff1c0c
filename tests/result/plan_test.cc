#include "result/plan.h"

#include <gtest/gtest.h>

#include <map>

#include "result/plan_json.h"

namespace sm {
namespace {

// The seed page: RTX 3090, Qwen3.5-4B, vLLM; "Over capacity" cells exactly as published.
const std::map<int64_t, int64_t> kSeedLargestValidConcurrency = {
    {0, 64}, {16 * kK, 16}, {32 * kK, 8}, {64 * kK, 4}, {128 * kK, 2}, {248 * kK, 2}};

TEST(Plan, DefaultsFollowTheSeedPage) {
  auto contexts = default_contexts(262144, 8192);
  EXPECT_EQ(contexts, (std::vector<int64_t>{0, 16384, 32768, 65536, 131072, 253952}));
  EXPECT_EQ(default_contexts(131072, 8192).size(), 5u);  // 120K is not above 128K
  EXPECT_EQ(default_contexts(std::nullopt, 8192).size(), 5u);
  EXPECT_EQ(default_concurrency(), (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128}));
  EXPECT_EQ(default_prefill_contexts(), (std::vector<int64_t>{8192, 16384, 32768, 65536, 131072}));
}

TEST(Plan, ReproducesTheSeedPageOverCapacityCellsForEveryCapacityInRange) {
  MatrixSettings s;
  s.contexts = default_contexts(262144, 8192);
  s.concurrency = default_concurrency();
  s.prefill_contexts = default_prefill_contexts();
  for (int64_t capacity : {524288, 530000, 557055}) {
    Plan plan = make_plan(s, {capacity, 262144});
    ASSERT_EQ(plan.decode.size(), 48u);
    int valid = 0;
    for (const auto& c : plan.decode) {
      const bool expect_valid = c.concurrency <= kSeedLargestValidConcurrency.at(c.context);
      EXPECT_EQ(c.status, expect_valid ? CellStatus::Valid : CellStatus::OverCapacity)
          << "capacity " << capacity << " context " << c.context << " x " << c.concurrency;
      valid += c.status == CellStatus::Valid;
    }
    EXPECT_EQ(valid, 23);  // the seed page's 23 measured decode cells
    for (const auto& r : plan.prefill) EXPECT_EQ(r.status, CellStatus::Valid);
  }
  // Just outside the range the pattern changes.
  EXPECT_EQ(make_plan(s, {524287, 262144}).decode[6].status, CellStatus::OverCapacity);  // 0 x 64
  EXPECT_EQ(decode_cell_status(128 * kK, 4, 8192, {557056, 262144}), CellStatus::Valid);
}

TEST(Plan, TooLongWinsOverCapacity) {
  EXPECT_EQ(decode_cell_status(260000, 1, 8192, {1000000, 262144}), CellStatus::BeyondModel);
  EXPECT_EQ(prefill_row_status(262144, {std::nullopt, 262144}), CellStatus::BeyondModel);
  EXPECT_EQ(prefill_row_status(262143, {std::nullopt, 262144}), CellStatus::Valid);
  EXPECT_EQ(decode_cell_status(1 << 20, 1000, 8192, {}), CellStatus::Valid);  // unknown limits: run
}

TEST(Plan, SortsAndDeduplicates) {
  MatrixSettings s;
  s.contexts = {32, 0, 32};
  s.concurrency = {4, 1};
  s.prefill_contexts = {64, 8};
  Plan p = make_plan(s, {});
  ASSERT_EQ(p.decode.size(), 4u);
  EXPECT_EQ(p.decode[0].context, 0);
  EXPECT_EQ(p.decode[0].concurrency, 1);
  EXPECT_EQ(p.prefill[0].context, 8);
}

TEST(Plan, JsonShape) {
  MatrixSettings s;
  s.contexts = {0};
  s.concurrency = {1};
  s.prefill_contexts = {8192};
  auto j = plan_to_json(make_plan(s, {}));
  EXPECT_EQ(j["decode"][0]["context"], 0);
  EXPECT_EQ(j["decode"][0]["concurrency"], 1);
  EXPECT_EQ(j["decode"][0]["status"], "valid");
  EXPECT_EQ(j["prefill"][0]["context"], 8192);
  EXPECT_EQ(j["prefill"][0]["status"], "valid");
}

TEST(Plan, ValidationNamesTheProblem) {
  MatrixSettings s;
  s.contexts = {0};
  s.concurrency = {1};
  EXPECT_TRUE(validate(s).has_value());
  s.duration_s = 0;
  EXPECT_FALSE(validate(s).has_value());
  EXPECT_NE(validate(s).error().message.find("more than 0 and at most 86400 seconds (got 0)"), std::string::npos)
      << validate(s).error().message;
  s.duration_s = 1;
  s.max_output_tokens = 1;
  EXPECT_NE(validate(s).error().message.find("--max-output"), std::string::npos);
  // One output token is all prefill rows need.
  s.contexts.clear();
  s.prefill_contexts = {512};
  EXPECT_TRUE(validate(s).has_value());
  s.prefill_contexts = {20 * kK * kK};
  EXPECT_NE(validate(s).error().message.find("10M"), std::string::npos);
  s.prefill_contexts = {512};
  s.contexts = {11 * kK * kK};
  s.max_output_tokens = 16;
  EXPECT_NE(validate(s).error().message.find("above the 10485760-token limit"), std::string::npos)
      << validate(s).error().message;
}

// A model's own limit ends the default rows: max-model-len − max-output, nothing above it.
TEST(Plan, DefaultContextsEndAtTheModelsLimit) {
  EXPECT_EQ(default_contexts(262144, 8192), (std::vector<int64_t>{0, 16 * kK, 32 * kK, 64 * kK, 128 * kK, 248 * kK}));
  EXPECT_EQ(default_contexts(131072, 8192), (std::vector<int64_t>{0, 16 * kK, 32 * kK, 64 * kK, 120 * kK}));
  EXPECT_EQ(default_contexts(32768, 8192), (std::vector<int64_t>{0, 16 * kK, 24 * kK}));
  EXPECT_EQ(default_contexts(std::nullopt, 8192), (std::vector<int64_t>{0, 16 * kK, 32 * kK, 64 * kK, 128 * kK}));
  EXPECT_EQ(default_contexts(4096, 8192), (std::vector<int64_t>{0}));
}

}  // namespace
}  // namespace sm
