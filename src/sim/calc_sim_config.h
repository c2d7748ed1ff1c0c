#pragma once
// A simulated engine configured from the calculator: step times, API-server time and KV capacity
// of a GPU × model × quantisation × engine, with the engine's scheduler limits.
//
//   auto catalog = sm::calc::Catalog::builtin();
//   auto config = sm::sim::sim_config_from_calc(sm::sim::SimTarget::seed(), *catalog);
//   auto server = sm::sim::SimServer::start(*config);
// or, for the embedded default of `run`, in one call: sm::sim::seed_sim_config().
#include <cstdint>
#include <optional>
#include <string>

#include "calc/catalog.h"
#include "calc/setup.h"
#include "core/error.h"
#include "sim/sim_config.h"

namespace sm::sim {

/// What to simulate, by catalog names (see `speedmatrix calc --list`). Defaults: the seed page's
/// hardware, model and engine.
struct SimTarget {
  std::string gpu = "rtx3090";          ///< GPU id or alias
  std::string model = "qwen3.5-4b";     ///< model shape id or alias
  std::string quant = "awq-4bit";       ///< quantisation id or alias
  std::string engine = "vllm";          ///< engine parameters id or alias
  int gpus = 1;                         ///< tensor-parallel GPUs
  double kv_bytes_per_element = 2;      ///< 2 (BF16/FP16 KV cache) or 1 (FP8)
  std::optional<double> gpu_mem_util;   ///< default: the engine's
  std::optional<int64_t> max_num_seqs;  ///< default: the engine's
  std::optional<int64_t> max_batched_tokens;  ///< default: the engine's for this GPU
  std::optional<int64_t> kv_capacity_tokens;  ///< replaces the predicted KV capacity
  std::optional<int64_t> max_model_len;       ///< default: the model's maximum position, capped to
                                              ///< what the KV cache holds

  /// The seed page's run: RTX 3090, Qwen3.5-4B AWQ 4-bit, vLLM at --gpu-memory-utilization 0.94
  /// (a predicted KV capacity inside the range that reproduces the page's over-capacity cells).
  static SimTarget seed();
};

/// The calculator's Setup for `target` (fails on unknown names, with suggestions).
Result<calc::Setup> calc_setup_for(const SimTarget& target, const calc::Catalog& catalog);

/// A SimConfig whose cost model is the calculator's for `target`: KV capacity predicted (or the
/// override), max_num_seqs and max_num_batched_tokens as the engine sets them, names from the
/// catalog ("<Model>-<quant id>-simulated"). Listen address and the other fields keep their
/// SimConfig defaults. Fails when the weights do not fit the GPU.
Result<SimConfig> sim_config_from_calc(const SimTarget& target, const calc::Catalog& catalog);

/// sim_config_from_calc(SimTarget::seed(), the built-in catalog): the embedded default target.
Result<SimConfig> seed_sim_config();

}  // namespace sm::sim
