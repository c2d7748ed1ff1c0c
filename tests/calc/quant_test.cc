#include "calc/quant.h"

#include <gtest/gtest.h>

#include "calc/catalog.h"

namespace sm::calc {
namespace {

TEST(CalcQuant, BitsPerWeightIncludeScalesAndZeros) {
  auto c = Catalog::builtin();
  ASSERT_TRUE(c);
  const QuantSpec awq = *c->find_quant("awq-4bit");
  EXPECT_DOUBLE_EQ(awq.bits_per_weight(), 4.0 + 20.0 / 128.0);
  EXPECT_DOUBLE_EQ(awq.bits_for("mlp"), awq.bits_per_weight());
  EXPECT_DOUBLE_EQ(awq.bits_for("lm_head"), 16);
  EXPECT_DOUBLE_EQ(awq.bits_for("embedding"), 16);
  EXPECT_DOUBLE_EQ(awq.bits_for("linear_attention_small"), 16);
  const QuantSpec q4 = *c->find_quant("q4_k_m");
  EXPECT_DOUBLE_EQ(q4.bits_for("lm_head"), 6.5625);
  EXPECT_DOUBLE_EQ(q4.bits_for("embedding"), 4.5);
  EXPECT_DOUBLE_EQ(c->find_quant("bf16")->bits_for("mlp"), 16);
  EXPECT_EQ(c->find_quant("fp8")->activation_bits, 8);
}

TEST(CalcQuant, KeepSixteenBitAddsClasses) {
  QuantSpec q;
  q.weight_bits = 4;
  q.keep_16bit = {"linear_attention"};
  EXPECT_DOUBLE_EQ(q.bits_for("linear_attention"), 16);
  EXPECT_DOUBLE_EQ(q.bits_for("attention"), 4);
}

}  // namespace
}  // namespace sm::calc
