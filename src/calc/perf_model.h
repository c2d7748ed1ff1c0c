#pragma once
// The calculator's performance model: how long one continuous-batching step takes on a GPU for
// a model, and how many KV tokens fit. docs/calculator.md derives every term.
//
// Per step (decode streams plus optional prefill chunks in one batch):
//   t = step_overhead
//     + max(weight bytes read / BW, matmul FLOPs / compute)        linear layers (experts: touched ones)
//     + max(LM head bytes / BW, LM head FLOPs / compute)           logits of every token that samples
//     + max(KV bytes read / BW, attention FLOPs / compute)         every stream at its current context
//     + recurrent state bytes read and written / BW                linear-attention (GDN) layers
// with BW = bandwidth × bandwidth_efficiency and compute = tensor peak × (decode or prefill)
// efficiency, both × GPUs × (1 − tp_loss × (GPUs − 1)). Decode and prefill matmul FLOPs use their
// own efficiency. KV blocks that several streams share (one prompt, prefix caching) are read
// 1 + (N − 1) × (1 − shared_prefix_reuse) times instead of N.
//
// The simulated engine calls step_time_s() once per scheduler step:
//
//   sm::calc::PerfModel model(setup);                 // precomputes byte and FLOP counts
//   std::vector<int64_t> contexts = {16384, 16390};   // tokens in each decoding stream's KV
//   sm::calc::PrefillChunk chunk{.start_position = 0, .tokens = 2048};
//   double dt = model.step_time_s(contexts, std::span(&chunk, 1), /*shared_prefix_tokens=*/16384);
//
// Cost: O(number of streams + chunks), no allocation. Thread-safety: a PerfModel is immutable
// after construction; its const methods may be called from any thread.
#include <cstdint>
#include <span>

#include "calc/setup.h"

namespace sm::calc {

/// New prompt tokens of one request computed in a step (chunked prefill).
struct PrefillChunk {
  int64_t start_position = 0;  ///< tokens of this request already in the KV cache before the chunk
  int64_t tokens = 0;          ///< prompt tokens computed in this step (> 0)
  bool samples = true;         ///< the chunk ends its prompt: its last token's logits are computed
};

/// The terms of one step, seconds each; total_s is their sum.
struct StepBreakdown {
  double overhead_s = 0;   ///< engine's fixed per-step time
  double linear_s = 0;     ///< linear layers: max(weights read, matmul compute)
  double lm_head_s = 0;    ///< LM head: max(matrix read, compute)
  double attention_s = 0;  ///< softmax attention: max(KV read, compute)
  double state_s = 0;      ///< linear-attention recurrent state read + written
  double total_s = 0;      ///< the step
  bool linear_compute_bound = false;  ///< the linear term is compute-bound
};

/// Memory of one engine replica (all GPUs together), bytes.
struct MemoryBreakdown {
  double usable_bytes = 0;      ///< runtime-visible total × GPUs
  double engine_bytes = 0;      ///< usable × memory utilisation
  double weight_bytes = 0;      ///< weights as loaded (quantised classes at their bits)
  double reserve_bytes = 0;     ///< fixed reserve × GPUs (context, graphs, workspaces)
  double activation_bytes = 0;  ///< activation peak of one max-batched-tokens step + sampler logits
  double kv_pool_bytes = 0;     ///< what is left for the KV cache (may be negative: does not fit)
  double kv_bytes_per_token = 0;      ///< K + V of one token over all softmax-attention layers
  double state_bytes_per_sequence = 0; ///< recurrent state of one sequence (linear-attention layers)
};

class PerfModel {
 public:
  /// Precomputes the per-token and per-step byte and FLOP counts of `setup`.
  explicit PerfModel(const Setup& setup);

  /// Seconds of one step that decodes one token for each stream, `decode_contexts[i]` being the
  /// tokens in stream i's KV cache (its context), and computes `chunks` of prompts in the same
  /// batch. `shared_prefix_tokens`: leading tokens every decode stream shares physically (the
  /// same prompt with prefix caching); 0 when unknown. An empty step costs nothing.
  double step_time_s(std::span<const int64_t> decode_contexts, std::span<const PrefillChunk> chunks = {},
                     int64_t shared_prefix_tokens = 0) const;
  /// The same with its terms.
  StepBreakdown step_breakdown(std::span<const int64_t> decode_contexts, std::span<const PrefillChunk> chunks = {},
                               int64_t shared_prefix_tokens = 0) const;
  /// Decode-only step: step_time_s(contexts, {}, shared_prefix_tokens).
  double decode_step_time_s(std::span<const int64_t> contexts, int64_t shared_prefix_tokens = 0) const {
    return step_time_s(contexts, {}, shared_prefix_tokens);
  }
  /// Seconds of one step that computes only `tokens` prompt tokens starting at `start_position`
  /// (`samples`: the chunk ends the prompt, so its last token's logits are computed too).
  double prefill_chunk_time_s(int64_t start_position, int64_t tokens, bool samples = true) const;
  /// Seconds of the GPU work of a cold prompt of `prompt_tokens` alone on the server, in chunks
  /// of the engine's max batched tokens (no CPU time: see request_cpu_time_s).
  double prefill_compute_time_s(int64_t prompt_tokens) const;
  /// CPU time before a request's first step: per-request overhead + tokenizing the prompt.
  double request_cpu_time_s(int64_t prompt_tokens) const;
  /// TTFT of a cold prompt alone on the server: request_cpu_time_s + prefill_compute_time_s.
  double prefill_time_s(int64_t prompt_tokens) const {
    return request_cpu_time_s(prompt_tokens) + prefill_compute_time_s(prompt_tokens);
  }
  /// KV-cache capacity in tokens (attention KV, as engines report it); 0 when nothing fits.
  int64_t kv_capacity_tokens() const;
  /// How the memory is split.
  const MemoryBreakdown& memory() const { return memory_; }
  const Setup& setup() const { return setup_; }

 private:
  Setup setup_;
  MemoryBreakdown memory_;
  double bandwidth_bytes_per_s_ = 0;  ///< effective: × efficiency × TP scaling
  double kv_bandwidth_bytes_per_s_ = 0;  ///< the same for KV-cache reads (attention_bandwidth_efficiency)
  double weight_bandwidth_bytes_per_s_ = 0;  ///< the same for the linear layers' weights (FP4 upcast where emulated)
  double decode_flops_ = 0;           ///< effective matmul FLOP/s of decode tokens
  double prefill_flops_ = 0;          ///< effective matmul FLOP/s of prefill tokens
  double attention_decode_flops_ = 0; ///< effective 16-bit FLOP/s of decode attention
  double attention_prefill_flops_ = 0;  ///< effective 16-bit FLOP/s of prefill attention
  double dense_weight_bytes_ = 0;     ///< linear weights read every step (not routed experts, not LM head)
  double expert_bytes_ = 0;           ///< one routed expert of one layer
  double lm_head_bytes_ = 0;          ///< LM head matrix
  double moe_layers_ = 0;             ///< layers with routed experts
  double experts_ = 0;                ///< routed experts per layer
  double active_experts_ = 0;         ///< experts per token
  double active_linear_flops_per_token_ = 0;  ///< 2 × active linear params
  double routed_expert_flops_per_token_ = 0;  ///< 2 × the routed experts' share of them (every MoE layer's k experts)
  double lm_head_flops_per_token_ = 0;        ///< 2 × vocab × hidden
  double full_kv_bytes_per_token_ = 0;        ///< K + V per token of full-attention layers
  double sliding_kv_bytes_per_token_ = 0;     ///< K + V per token of sliding-window layers
  double full_attention_flops_per_pair_ = 0;  ///< 4 × q heads × head dim × full layers, per (query, key) pair (decode)
  double sliding_attention_flops_per_pair_ = 0;  ///< the same for sliding-window layers (decode)
  double full_prefill_flops_per_pair_ = 0;     ///< the same for prefill (differs from decode for MLA)
  double sliding_prefill_flops_per_pair_ = 0;  ///< the same for prefill, sliding-window layers
  /// Without flash attention, bytes of the materialised score matrix per query-key pair of a
  /// prefill chunk, summed over heads and full-attention layers (0 with flash attention).
  double full_score_bytes_per_pair_ = 0;
  double sliding_score_bytes_per_pair_ = 0;  ///< the same for sliding-window layers
  double state_traffic_bytes_ = 0;            ///< 2 × recurrent state per sequence (read + write)
};

/// Convenience wrappers; each builds a PerfModel (microseconds): use the class in loops.
double decode_step_time_s(const Setup& setup, std::span<const int64_t> contexts, int64_t shared_prefix_tokens = 0);
double prefill_time_s(const Setup& setup, int64_t prompt_tokens);
int64_t kv_capacity_tokens(const Setup& setup);

}  // namespace sm::calc
