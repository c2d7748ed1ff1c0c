#pragma once
// What the calculator predicts for: GPU × count × model × quantisation × engine, plus the
// serving settings that change the numbers.
#include <cstdint>
#include <optional>

#include "calc/engine_params.h"
#include "calc/gpu.h"
#include "calc/model_shape.h"
#include "calc/quant.h"

namespace sm::calc {

struct Setup {
  GpuSpec gpu;                    ///< one GPU; tensor parallelism multiplies it by `gpus`
  int gpus = 1;                   ///< tensor-parallel GPUs (≥ 1)
  ModelShape model;               ///< the text decoder
  QuantSpec quant;                ///< weight quantisation
  EngineParams engine;            ///< engine parameters (fitted per engine)
  double kv_bytes_per_element = 2;    ///< KV cache element size: 2 (BF16/FP16) or 1 (FP8)
  bool flash_attention = true;        ///< fused flash-attention kernels (false: llama.cpp `-fa off`)
  bool cuda_graphs = true;            ///< decode steps replayed as CUDA graphs (false: vLLM --enforce-eager)
  std::optional<double> gpu_mem_util;  ///< fraction of usable memory the engine takes; default engine.default_gpu_mem_util
  std::optional<int64_t> max_num_seqs;        ///< default engine.max_num_seqs
  std::optional<int64_t> max_batched_tokens;  ///< default: the engine's, by GPU memory

  /// The memory fraction in effect.
  double mem_util() const { return gpu_mem_util.value_or(engine.default_gpu_mem_util); }
  /// Concurrent sequences in effect.
  int64_t num_seqs() const { return max_num_seqs.value_or(engine.max_num_seqs); }
  /// Tokens per scheduler step in effect (the engine's default depends on GPU memory).
  int64_t batched_tokens() const {
    if (max_batched_tokens) return *max_batched_tokens;
    if (engine.large_gpu_memory_bytes > 0 && gpu.memory_bytes >= engine.large_gpu_memory_bytes)
      return engine.max_batched_tokens_large_gpu;
    return engine.max_batched_tokens;
  }
};

}  // namespace sm::calc
