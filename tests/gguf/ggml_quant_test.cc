#include "gguf/ggml_quant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace sm::gguf {
namespace {

TEST(GgmlQuant, F16KnownValues) {
  EXPECT_EQ(float_to_f16(0.0f), 0x0000);
  EXPECT_EQ(float_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(float_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_f16(0.5f), 0x3800);
  EXPECT_EQ(float_to_f16(0.1f), 0x2e66);
  EXPECT_EQ(float_to_f16(65504.0f), 0x7bff);              // largest half
  EXPECT_EQ(float_to_f16(65519.0f), 0x7bff);              // still rounds down
  EXPECT_EQ(float_to_f16(65520.0f), 0x7c00);              // rounds to infinity
  EXPECT_EQ(float_to_f16(1e6f), 0x7c00);
  EXPECT_EQ(float_to_f16(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -25)), 0x0000);  // half of it: ties to even (0)
  EXPECT_EQ(float_to_f16(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 x smallest: ties to even (2)
  EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_f16(1e-9f), 0x0000);
  EXPECT_EQ(float_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie, even stays
  EXPECT_EQ(float_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie, odd rounds up
  const uint16_t nan = float_to_f16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
}

TEST(GgmlQuant, F16RoundTripsEveryHalf) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float f = f16_to_float(h);
    if (std::isnan(f)) {
      EXPECT_EQ(h & 0x7c00, 0x7c00);
      continue;
    }
    ASSERT_EQ(float_to_f16(f), h) << "bits " << bits;
  }
  EXPECT_EQ(f16_to_float(0x3c00), 1.0f);
  EXPECT_EQ(f16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16_to_float(0xfc00), -std::numeric_limits<float>::infinity());
}

TEST(GgmlQuant, Q8_0BlockLayout) {
  std::vector<float> values(32);
  for (int i = 0; i < 32; ++i) values[i] = static_cast<float>(i - 16) / 16.0f;  // -1 ... 0.9375
  std::vector<std::byte> block(kQ8_0BlockBytes);
  quantize_q8_0(values, block);
  uint16_t d_bits = 0;
  std::memcpy(&d_bits, block.data(), 2);
  EXPECT_EQ(d_bits, float_to_f16(1.0f / 127.0f));  // d = max|x| / 127, stored first as f16
  EXPECT_EQ(static_cast<int8_t>(block[2]), -127);  // x = -1
  EXPECT_EQ(static_cast<int8_t>(block[2 + 16]), 0);  // x = 0
  EXPECT_EQ(static_cast<int8_t>(block[2 + 20]), 32);  // x = 0.25 -> round(31.75) = 32
  std::vector<float> back(32);
  dequantize_q8_0(block, back);
  const float d = f16_to_float(d_bits);
  for (int i = 0; i < 32; ++i) EXPECT_NEAR(back[i], values[i], d) << i;
}

TEST(GgmlQuant, Q8_0ZeroBlockAndSeveralBlocks) {
  std::vector<float> values(64, 0.0f);
  for (int i = 32; i < 64; ++i) values[i] = (i % 2 ? 1.0f : -1.0f) * 0.01f * static_cast<float>(i - 31);
  std::vector<std::byte> blocks(2 * kQ8_0BlockBytes, std::byte{0xff});
  quantize_q8_0(values, blocks);
  for (size_t i = 0; i < kQ8_0BlockBytes; ++i) EXPECT_EQ(blocks[i], std::byte{0}) << i;  // d = 0, qs = 0
  std::vector<float> back(64);
  dequantize_q8_0(blocks, back);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(back[i], 0.0f);
  EXPECT_NEAR(back[63], values[63], 0.32f / 127.0f);
  EXPECT_EQ(static_cast<int8_t>(blocks[kQ8_0BlockBytes + 2 + 31]), 127);  // the largest |x| maps to 127
}

}  // namespace
}  // namespace sm::gguf
