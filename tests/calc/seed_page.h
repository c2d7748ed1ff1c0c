#pragma once
// The measured numbers of the seed page (shared/seed/speed-test-matrix.txt): RTX 3090,
// Qwen3.5-4B AWQ 4-bit, vLLM 0.32.0, --gpu-memory-utilization 0.94 --max-model-len 262144,
// max output 8,192 tokens, 30 s windows. The calculator's fidelity test compares against them.
#include <array>
#include <cstdint>

namespace sm::calc::seed {

/// One valid sustained-decode cell of the seed page.
struct DecodeCell {
  int64_t context;          ///< prompt tokens
  int64_t concurrency;      ///< simultaneous requests
  double total_tok_s;       ///< total tok/s
  double per_request_tok_s; ///< per-request tok/s
  double ttft_ms;           ///< median TTFT (prompt cached)
  double tbt_ms;            ///< median time between tokens
};

/// One prefill row of the seed page.
struct PrefillRow {
  int64_t context;      ///< prompt tokens
  double prompt_tok_s;  ///< prompt tok/s
  double ttft_ms;       ///< TTFT of the cold prompt
};

inline constexpr int64_t kK = 1024;
inline constexpr int64_t k248K = 253952;

/// The 23 valid decode cells, row-major. Every other cell of the 6 × 8 grid is over capacity.
inline constexpr std::array<DecodeCell, 23> kDecode = {{
    {0, 1, 181.7, 182.7, 24, 5.5},          {0, 2, 331.3, 166.9, 38, 6.0},
    {0, 4, 618.9, 156.5, 50, 6.4},          {0, 8, 1081.0, 137.5, 89, 7.3},
    {0, 16, 1787.8, 114.5, 151, 8.7},       {0, 32, 2596.1, 83.0, 170, 12.0},
    {0, 64, 3263.4, 52.0, 467, 19.2},       {16 * kK, 1, 163.4, 163.8, 79, 6.1},
    {16 * kK, 2, 281.4, 141.0, 109, 7.1},   {16 * kK, 4, 508.0, 127.4, 175, 7.9},
    {16 * kK, 8, 812.0, 101.5, 297, 9.8},   {16 * kK, 16, 1132.7, 70.3, 585, 14.2},
    {32 * kK, 1, 149.1, 149.4, 77, 6.7},    {32 * kK, 2, 243.6, 122.0, 95, 8.2},
    {32 * kK, 4, 422.3, 105.9, 146, 9.4},   {32 * kK, 8, 625.4, 78.3, 234, 12.8},
    {64 * kK, 1, 126.8, 127.0, 133, 7.9},   {64 * kK, 2, 192.2, 96.2, 168, 10.4},
    {64 * kK, 4, 312.9, 78.4, 254, 12.8},   {128 * kK, 1, 97.5, 97.7, 355, 10.2},
    {128 * kK, 2, 135.0, 67.4, 434, 14.8},  {k248K, 1, 67.9, 68.0, 706, 14.7},
    {k248K, 2, 86.7, 43.2, 864, 23.1},
}};

/// The five prefill rows.
inline constexpr std::array<PrefillRow, 5> kPrefill = {{
    {8 * kK, 10600.0, 773},
    {16 * kK, 9919.0, 1635},
    {32 * kK, 8783.0, 3676},
    {64 * kK, 7123.0, 9044},
    {128 * kK, 5297.0, 24295},
}};

}  // namespace sm::calc::seed
