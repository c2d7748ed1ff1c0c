#include "gguf/gguf_types.h"

#include <gtest/gtest.h>

namespace sm::gguf {
namespace {

TEST(GgufTypes, ParseTensorType) {
  EXPECT_EQ(parse_tensor_type("f32").value(), TensorType::F32);
  EXPECT_EQ(parse_tensor_type("F16").value(), TensorType::F16);
  EXPECT_EQ(parse_tensor_type("q8_0").value(), TensorType::Q8_0);
  auto bad = parse_tensor_type("q4_k");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::InvalidArgument);
  EXPECT_NE(bad.error().message.find("q4_k"), std::string::npos);
  EXPECT_NE(bad.error().message.find("f32, f16 or q8_0"), std::string::npos);
}

TEST(GgufTypes, Sizes) {
  EXPECT_EQ(tensor_size_bytes(TensorType::F32, 10), 40u);
  EXPECT_EQ(tensor_size_bytes(TensorType::F16, 10), 20u);
  EXPECT_EQ(tensor_size_bytes(TensorType::Q8_0, 64), 68u);
  EXPECT_EQ(block_values(TensorType::Q8_0), 32u);
  EXPECT_EQ(align_up(0, 32), 0u);
  EXPECT_EQ(align_up(1, 32), 32u);
  EXPECT_EQ(align_up(64, 32), 64u);
  TensorInfo t{"x", {64, 3}, TensorType::Q8_0, 0};
  EXPECT_EQ(t.values(), 192u);
  EXPECT_EQ(t.size_bytes(), 6u * 34u);
}

}  // namespace
}  // namespace sm::gguf
