#include "gguf/ggml_quant.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "core/error.h"

namespace sm::gguf {

uint16_t float_to_f16(float value) {
  const uint32_t f = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): value = mantissa * 2^-24, rounded to nearest even.
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // below half of the smallest subnormal
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14..24 for the exponents that reach here
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 23-bit mantissa to 10 bits.
  uint32_t half = ((abs >> 13) - ((127 - 15) << 10));
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // a carry into the exponent is right
  return static_cast<uint16_t>(sign | half);
}

float f16_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exp = (bits >> 10) & 0x1fu;
  const uint32_t mant = bits & 0x3ffu;
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

void quantize_q8_0(std::span<const float> values, std::span<std::byte> out) {
  SM_CHECK(values.size() % kQ8_0BlockValues == 0, "q8_0 needs a multiple of 32 values");
  const size_t blocks = values.size() / kQ8_0BlockValues;
  SM_CHECK(out.size() >= blocks * kQ8_0BlockBytes, "q8_0 output too small");
  for (size_t b = 0; b < blocks; ++b) {
    const float* x = values.data() + b * kQ8_0BlockValues;
    std::byte* block = out.data() + b * kQ8_0BlockBytes;
    float amax = 0.0f;
    for (size_t i = 0; i < kQ8_0BlockValues; ++i) amax = std::fmax(amax, std::fabs(x[i]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t d_bits = float_to_f16(d);
    std::memcpy(block, &d_bits, sizeof d_bits);  // little-endian hosts only (x86-64, arm64)
    for (size_t i = 0; i < kQ8_0BlockValues; ++i) {
      const auto q = static_cast<int8_t>(std::lround(x[i] * id));
      block[2 + i] = static_cast<std::byte>(q);
    }
  }
}

void dequantize_q8_0(std::span<const std::byte> blocks, std::span<float> out) {
  SM_CHECK(blocks.size() % kQ8_0BlockBytes == 0, "q8_0 data is not a whole number of blocks");
  const size_t n = blocks.size() / kQ8_0BlockBytes;
  SM_CHECK(out.size() >= n * kQ8_0BlockValues, "q8_0 output too small");
  for (size_t b = 0; b < n; ++b) {
    const std::byte* block = blocks.data() + b * kQ8_0BlockBytes;
    uint16_t d_bits = 0;
    std::memcpy(&d_bits, block, sizeof d_bits);
    const float d = f16_to_float(d_bits);
    for (size_t i = 0; i < kQ8_0BlockValues; ++i) {
      out[b * kQ8_0BlockValues + i] = d * static_cast<float>(static_cast<int8_t>(block[2 + i]));
    }
  }
}

}  // namespace sm::gguf
