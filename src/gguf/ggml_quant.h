#pragma once
// Number formats of ggml tensors: IEEE half floats and q8_0 blocks, bit-exact with ggml's
// reference (non-SIMD) code.
#include <cstddef>
#include <cstdint>
#include <span>

namespace sm::gguf {

/// Values in one q8_0 block.
constexpr size_t kQ8_0BlockValues = 32;
/// Bytes of one q8_0 block: an f16 scale `d` followed by 32 int8 `qs`; value i = d * qs[i].
constexpr size_t kQ8_0BlockBytes = 2 + kQ8_0BlockValues;

/// float -> IEEE binary16 bits, round to nearest even; overflow gives infinity, NaN stays NaN.
uint16_t float_to_f16(float value);
/// IEEE binary16 bits -> float (exact).
float f16_to_float(uint16_t bits);

/// Quantizes `values` (a multiple of 32) into q8_0 blocks as ggml's quantize_row_q8_0_ref does:
/// d = max|x| / 127, qs = round(x / d). `out` must hold values.size() / 32 * 34 bytes.
void quantize_q8_0(std::span<const float> values, std::span<std::byte> out);
/// The inverse: q8_0 blocks -> floats. `out` must hold blocks.size() / 34 * 32 values.
void dequantize_q8_0(std::span<const std::byte> blocks, std::span<float> out);

}  // namespace sm::gguf
