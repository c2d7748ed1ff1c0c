#include "gguf/model_shape.h"

#include <gtest/gtest.h>

namespace sm::gguf {
namespace {

std::string error_of(const ModelShape& s, TensorType type = TensorType::F16) {
  auto ok = validate(s, type);
  EXPECT_FALSE(ok.has_value());
  if (ok) return {};
  EXPECT_EQ(ok.error().code, ErrorCode::InvalidArgument);
  return ok.error().message;
}

TEST(ModelShape, PresetsAreValidForEveryType) {
  ASSERT_EQ(preset_names().size(), 3u);
  for (auto name : preset_names()) {
    auto s = preset_shape(name);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->name, name);
    for (TensorType t : {TensorType::F32, TensorType::F16, TensorType::Q8_0}) {
      EXPECT_TRUE(validate(*s, t).has_value()) << name;
    }
  }
  auto bad = preset_shape("huge");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("tiny, small, medium"), std::string::npos);
}

TEST(ModelShape, DerivedSizes) {
  const ModelShape tiny = preset_shape("tiny").value();
  EXPECT_EQ(tiny.head_dim(), 16u);
  EXPECT_EQ(tiny.kv_width(), 32u);
  EXPECT_EQ(tiny.kv_bytes_per_token_f16(), 2u * 2 * 32 * 2);  // K+V x layers x width x 2 bytes
  // Per layer: 2 norms + q,o (64x64) + k,v (64x32) + gate,up,down (64x192); then embd, output, norm.
  const uint64_t per_layer = 2 * 64 + 2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 192;
  EXPECT_EQ(tiny.parameter_count(101), 2 * per_layer + 2 * 64 * 101 + 64);
}

TEST(ModelShape, BadShapes) {
  ModelShape s = preset_shape("small").value();
  ModelShape bad = s;
  bad.layers = 0;
  EXPECT_EQ(error_of(bad), "--layers must be at least 1");
  bad = s;
  bad.hidden = 100;
  bad.heads = 3;
  EXPECT_EQ(error_of(bad), "--hidden 100 is not divisible by --heads 3");
  bad = s;
  bad.kv_heads = 3;
  EXPECT_EQ(error_of(bad), "--kv-heads 3 does not divide --heads 8");
  bad = s;
  bad.kv_heads = 16;
  EXPECT_EQ(error_of(bad), "--kv-heads 16 does not divide --heads 8");
  bad = s;
  bad.heads = 0;
  EXPECT_EQ(error_of(bad), "--heads must be at least 1");
  bad = s;
  bad.ffn = 0;
  EXPECT_EQ(error_of(bad), "--ffn must be at least 1");
  bad = s;
  bad.ctx_train = 0;
  EXPECT_EQ(error_of(bad), "--ctx must be at least 1");
  bad = s;
  bad.hidden = 24;
  bad.heads = 8;
  bad.kv_heads = 8;
  EXPECT_NE(error_of(bad).find("must be even"), std::string::npos);  // head size 3
  bad = s;
  bad.ffn = 700;
  EXPECT_TRUE(validate(bad, TensorType::F16).has_value());
  EXPECT_EQ(error_of(bad, TensorType::Q8_0), "--ffn 700 must be a multiple of 32 for q8_0 weights");
  bad = s;
  bad.hidden = 48;
  bad.heads = 4;
  bad.kv_heads = 4;
  EXPECT_TRUE(validate(bad, TensorType::F32).has_value());
  EXPECT_EQ(error_of(bad, TensorType::Q8_0), "--hidden 48 must be a multiple of 32 for q8_0 weights");
  bad = s;
  bad.layers = 5000;
  EXPECT_NE(error_of(bad).find("more than"), std::string::npos);
}

}  // namespace
}  // namespace sm::gguf
