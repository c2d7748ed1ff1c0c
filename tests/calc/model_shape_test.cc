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

// DeepSeek-V3 (MLA): the cache holds one 512-element latent plus a 64-element rotary key per
// token and layer, 61 × 576 × 2 B = 70,272 B per token in BF16 — not 61 × 128 heads × 192 × 2 × 2.
TEST(CalcModelShape, MlaCachesTheLatentNotPerHeadKeysAndValues) {
  const ModelShape m = model("deepseek-v3");
  ASSERT_TRUE(m.mla.present());
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, 2), 61.0 * 576 * 2);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, 1), 61.0 * 576);
  const ParamCounts p = count_params(m);
  EXPECT_NEAR(p.total, 671e9, 5e9);  // DeepSeek-V3 report: 671 B total (MTP module excluded)
  EXPECT_NEAR(p.active_linear + p.lm_head + p.embedding, 37.5e9, 1.5e9);  // 37 B activated
  // Absorbed decode attention works on the 576-wide latent for all 128 heads; prefill on per-head K/V.
  EXPECT_DOUBLE_EQ(attention_flops_per_pair_per_layer(m, false), 128.0 * (4 * 512 + 2 * 64));
  EXPECT_DOUBLE_EQ(attention_flops_per_pair_per_layer(m, true), 2.0 * 128 * (128 + 64 + 128));
  const ParamCounts lite = count_params(model("deepseek-v2-lite"));
  EXPECT_NEAR(lite.total, 15.7e9, 0.3e9);  // DeepSeek-V2-Lite: 15.7 B total
}

TEST(CalcModelShape, SlidingWindowModelsSplitTheirLayers) {
  const ModelShape g3 = model("gemma-3-27b");
  EXPECT_EQ(g3.full_attention_layers + g3.sliding_window_layers, g3.layers);
  EXPECT_EQ(g3.sliding_window, 1024);
  EXPECT_EQ(g3.linear_attention_layers(), 0);
  EXPECT_NEAR(count_params(g3).total, 27.0e9, 1.5e9);  // the text decoder of the 27 B (vision tower excluded)
  const ModelShape oss = model("gpt-oss-120b");
  EXPECT_EQ(oss.sliding_window, 128);
  EXPECT_NEAR(count_params(oss).total, 117e9, 3e9);  // model card: 117 B total, 5.1 B active
  EXPECT_NEAR(count_params(model("gpt-oss-20b")).total, 21e9, 1e9);
}

TEST(CalcModelShape, CatalogTotalsMatchTheModelNames) {
  struct Want {
    const char* id;
    double billions;
  };
  for (const Want w : {Want{"llama-2-7b", 6.74}, Want{"llama-2-13b", 13.0}, Want{"llama-2-70b", 69.0},
                       Want{"qwen2.5-7b", 7.6}, Want{"qwen2.5-72b", 72.7}, Want{"mixtral-8x7b", 46.7},
                       Want{"qwen3-235b-a22b", 235}, Want{"phi-4", 14.7}, Want{"phi-3-mini", 3.8},
                       Want{"gemma-2-9b", 9.2}, Want{"qwen3.5-35b-a3b", 35}})
    EXPECT_NEAR(count_params(model(w.id)).total / 1e9, w.billions, 0.04 * w.billions) << w.id;
}

}  // namespace
}  // namespace sm::calc
