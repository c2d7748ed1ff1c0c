#include "calc/model_shape.h"

#include <gtest/gtest.h>

#include "calc/catalog.h"

namespace sm::calc {
namespace {

ModelShape model(const char* id) {
  auto c = Catalog::builtin();
  EXPECT_TRUE(c);
  auto m = c->find_model(id);
  EXPECT_TRUE(m) << id;
  return *m;
}

// The derived figures of calculator.md §5.1 for Qwen3.5-4B.
TEST(CalcModelShape, Qwen35FourBMatchesTheDerivedCounts) {
  const ModelShape m = model("qwen3.5-4b");
  EXPECT_EQ(m.linear_attention_layers(), 24);
  const ParamCounts p = count_params(m);
  EXPECT_NEAR(p.mlp / 32, 70.8e6, 0.1e6);
  EXPECT_NEAR(p.attention / 8, 36.7e6, 0.1e6);
  EXPECT_NEAR((p.linear_attention + p.linear_attention_small) / 24, 42.1e6, 0.2e6);
  const double non_embedding = p.attention + p.linear_attention + p.linear_attention_small + p.mlp;
  EXPECT_NEAR(non_embedding, 3.57e9, 0.01e9);
  EXPECT_NEAR(p.embedding, 0.636e9, 0.001e9);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, 2), 32768);  // 8 × 4 × 256 × 2 × 2
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, 1), 16384);
  // 24 × (32 × 128 × 128 × 4 + 3 × 8192 × 2) = 48 MiB + 1.125 MiB.
  EXPECT_DOUBLE_EQ(linear_state_bytes_per_sequence(m), 24.0 * (32 * 128 * 128 * 4 + 3 * 8192 * 2));
}

TEST(CalcModelShape, Qwen3FourBKvIsFourAndAHalfTimesQwen35) {
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(model("qwen3-4b"), 2), 147456);
  EXPECT_DOUBLE_EQ(linear_state_bytes_per_sequence(model("qwen3-4b")), 0);
}

TEST(CalcModelShape, MoeCountsActiveExperts) {
  const ParamCounts p = count_params(model("qwen3-30b-a3b"));
  EXPECT_NEAR(p.total, 30.5e9, 0.2e9);
  EXPECT_NEAR(p.active_linear + p.lm_head + p.embedding, 3.3e9, 0.1e9);
  const ParamCounts next = count_params(model("qwen3-next-80b-a3b"));
  EXPECT_NEAR(next.total, 80e9, 2e9);
  EXPECT_NEAR(next.active_linear + next.lm_head + next.embedding, 3.9e9, 0.5e9);
}

TEST(CalcModelShape, DenseLlamaTotals) {
  EXPECT_NEAR(count_params(model("llama-3.1-8b")).total, 8.03e9, 0.02e9);
  EXPECT_NEAR(count_params(model("llama-3.1-70b")).total, 70.6e9, 0.2e9);
}

}  // namespace
}  // namespace sm::calc
