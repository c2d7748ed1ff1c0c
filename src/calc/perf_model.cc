#include "calc/perf_model.h"

#include <algorithm>
#include <cmath>

#include "calc/compat.h"

namespace sm::calc {

namespace {

// Expected number of distinct experts `tokens` tokens touch in one layer when each picks
// `active` of `experts` uniformly: E × (1 − (1 − k/E)^n). Why: at batch 1 a MoE step reads only
// k experts, at large batch nearly all of them.
double touched_experts(double experts, double active, double tokens) {
  if (experts <= 0 || tokens <= 0) return 0;
  return experts * (1.0 - std::pow(1.0 - active / experts, tokens));
}

// Σ_{p=start}^{start+n-1} (p + 1): query-key pairs of a causal chunk (each token attends to
// itself and every token before it).
double causal_pairs(double start, double n) { return n * (start + (n + 1.0) / 2.0); }

}  // namespace

PerfModel::PerfModel(const Setup& setup) : setup_(setup) {
  const Setup& s = setup_;
  const ParamCounts p = count_params(s.model);
  const QuantSpec& q = s.quant;
  const double gpus = std::max(1, s.gpus);
  // Tensor parallelism: every GPU adds its bandwidth and compute, minus the all-reduce and
  // synchronisation losses (induwara.lk discounts each extra GPU by 8%).
  const double tp_scale = gpus * std::max(0.1, 1.0 - s.engine.tp_loss_per_extra_gpu * (gpus - 1.0));

  bandwidth_bytes_per_s_ = s.gpu.bandwidth_bytes_per_s * s.engine.bandwidth_efficiency * tp_scale;
  kv_bandwidth_bytes_per_s_ = s.engine.attention_bandwidth_efficiency > 0
                                  ? s.gpu.bandwidth_bytes_per_s * s.engine.attention_bandwidth_efficiency * tp_scale
                                  : bandwidth_bytes_per_s_;
  // 8-bit or FP4 tensor math where the GPU has the quantisation's format, else 16-bit (weight-only).
  const MatmulMath math = matmul_math(s.gpu, q);
  const double matmul_peak = math.peak_flops;
  // FP4 weights without FP4 tensor math: the engine's upcasting kernels keep only part of the rate.
  const bool fp4_emulated = !math.native && q.fp4_math();
  weight_bandwidth_bytes_per_s_ = bandwidth_bytes_per_s_ * (fp4_emulated && s.engine.emulated_fp4_weight_efficiency > 0
                                                                 ? s.engine.emulated_fp4_weight_efficiency
                                                                 : 1.0);
  decode_flops_ = matmul_peak * s.engine.decode_compute_efficiency * tp_scale;
  prefill_flops_ = matmul_peak * s.engine.prefill_compute_efficiency * tp_scale;
  // Attention runs in 16-bit (the KV cache is dequantised on the fly when it is FP8).
  attention_decode_flops_ = s.gpu.tensor_16bit_flops * s.engine.decode_compute_efficiency * tp_scale;
  attention_prefill_flops_ = s.gpu.tensor_16bit_flops * s.engine.prefill_compute_efficiency * tp_scale;
  // Without a fused kernel, decode attention is a chain of small kernels (KQ, softmax, KQV) that
  // reach a smaller fraction of the arithmetic peak.
  if (!s.flash_attention && s.engine.no_flash_attention_efficiency > 0)
    attention_decode_flops_ = s.gpu.tensor_16bit_flops * s.engine.no_flash_attention_efficiency * tp_scale;
  // Prefill without it writes each chunk's KQ matrix, soft-maxes and reads it back (float32).
  if (!s.flash_attention && s.engine.no_flash_attention_prefill_efficiency > 0)
    attention_prefill_flops_ = s.gpu.tensor_16bit_flops * s.engine.no_flash_attention_prefill_efficiency * tp_scale;

  auto bytes = [&q](double params, const char* tensor_class) { return params * q.bits_for(tensor_class) / 8.0; };
  dense_weight_bytes_ = bytes(p.attention, "attention") + bytes(p.linear_attention, "linear_attention") +
                        bytes(p.linear_attention_small, "linear_attention_small") + bytes(p.mlp, "mlp") +
                        bytes(p.shared_expert, "shared_expert") + bytes(p.router, "router");
  expert_bytes_ = bytes(p.expert_one, "experts");
  lm_head_bytes_ = bytes(p.lm_head, "lm_head");
  moe_layers_ = static_cast<double>(s.model.moe_layer_count());
  experts_ = static_cast<double>(s.model.experts);
  active_experts_ = static_cast<double>(s.model.active_experts);
  active_linear_flops_per_token_ = 2.0 * p.active_linear;
  routed_expert_flops_per_token_ = 2.0 * moe_layers_ * active_experts_ * p.expert_one;
  lm_head_flops_per_token_ = 2.0 * p.lm_head;

  const double kv_layer_bytes = kv_bytes_per_token_per_layer(s.model, s.kv_bytes_per_element);
  full_kv_bytes_per_token_ = static_cast<double>(s.model.full_attention_layers) * kv_layer_bytes;
  sliding_kv_bytes_per_token_ = static_cast<double>(s.model.sliding_window_layers) * kv_layer_bytes;
  const double pair_flops = attention_flops_per_pair_per_layer(s.model, /*prefill=*/false);
  const double prefill_pair_flops = attention_flops_per_pair_per_layer(s.model, /*prefill=*/true);
  full_attention_flops_per_pair_ = pair_flops * static_cast<double>(s.model.full_attention_layers);
  sliding_attention_flops_per_pair_ = pair_flops * static_cast<double>(s.model.sliding_window_layers);
  full_prefill_flops_per_pair_ = prefill_pair_flops * static_cast<double>(s.model.full_attention_layers);
  sliding_prefill_flops_per_pair_ = prefill_pair_flops * static_cast<double>(s.model.sliding_window_layers);
  state_traffic_bytes_ = 2.0 * linear_state_bytes_per_sequence(s.model);
  // Without a fused kernel a prefill chunk's scores go through memory in float32, once per head:
  // KQ written (4 bytes), soft-maxed in place (read and written, 8) and read by KQV (4).
  constexpr double kNoFaScoreBytes = 16;
  if (!s.flash_attention) {
    const double per_layer = kNoFaScoreBytes * static_cast<double>(s.model.q_heads);
    full_score_bytes_per_pair_ = per_layer * static_cast<double>(s.model.full_attention_layers);
    sliding_score_bytes_per_pair_ = per_layer * static_cast<double>(s.model.sliding_window_layers);
  }

  // Memory of one replica. Weights as stored: every expert, the embedding once when tied.
  MemoryBreakdown& m = memory_;
  m.usable_bytes = static_cast<double>(s.gpu.usable_memory_bytes) * gpus;
  m.engine_bytes = m.usable_bytes * s.mem_util();
  m.weight_bytes = dense_weight_bytes_ + bytes(p.experts_total, "experts") + bytes(p.embedding, "embedding") +
                   (s.model.tied_embeddings ? 0.0 : lm_head_bytes_);
  m.reserve_bytes = static_cast<double>(s.engine.reserve_bytes) * gpus;
  // Activation peak of the profiling step: max-batched-tokens rows of the widest projection
  // (input, output and activation copies, 16-bit) plus the sampler's float32 logits (and one
  // softmax copy) for max-num-seqs rows.
  const auto& la = s.model.linear_attention;
  const double widest = std::max({static_cast<double>(s.model.intermediate_size),
                                  active_experts_ * static_cast<double>(s.model.expert_intermediate_size) +
                                      static_cast<double>(s.model.shared_expert_intermediate_size),
                                  static_cast<double>(s.model.q_heads * s.model.head_dim) *
                                          (s.model.attention_output_gate ? 2.0 : 1.0) +
                                      2.0 * static_cast<double>(s.model.kv_heads * s.model.head_dim),
                                  2.0 * static_cast<double>(la.key_heads * la.key_head_dim) +
                                      2.0 * static_cast<double>(la.value_heads * la.value_head_dim)});
  const double hidden = static_cast<double>(s.model.hidden_size);
  m.activation_bytes = static_cast<double>(s.batched_tokens()) * 2.0 * (6.0 * hidden + 3.0 * widest) +
                       static_cast<double>(s.num_seqs()) * static_cast<double>(s.model.vocab_size) * 4.0 * 2.0;
  m.kv_pool_bytes = m.engine_bytes - m.weight_bytes - m.reserve_bytes - m.activation_bytes;
  m.kv_bytes_per_token = full_kv_bytes_per_token_ + sliding_kv_bytes_per_token_;
  m.state_bytes_per_sequence = linear_state_bytes_per_sequence(s.model);
}

StepBreakdown PerfModel::step_breakdown(std::span<const int64_t> decode_contexts, std::span<const PrefillChunk> chunks,
                                        int64_t shared_prefix_tokens) const {
  StepBreakdown b;
  const double streams = static_cast<double>(decode_contexts.size());
  double prefill_tokens = 0;
  double prefill_pairs_full = 0;
  double prefill_pairs_sliding = 0;
  double prefill_kv_read_tokens = 0;
  const double window = static_cast<double>(setup_.model.sliding_window);
  for (const PrefillChunk& c : chunks) {
    if (c.tokens <= 0) continue;
    const double start = static_cast<double>(std::max<int64_t>(0, c.start_position));
    const double n = static_cast<double>(c.tokens);
    prefill_tokens += n;
    prefill_pairs_full += causal_pairs(start, n);
    // Sliding layers: each query sees at most `window` keys.
    prefill_pairs_sliding += window > 0 ? std::min(causal_pairs(start, n), n * window) : 0.0;
    prefill_kv_read_tokens += start;
  }
  const double chunk_count = static_cast<double>(chunks.size());
  const double sampling_chunks = static_cast<double>(
      std::count_if(chunks.begin(), chunks.end(), [](const PrefillChunk& c) { return c.tokens > 0 && c.samples; }));
  if (streams == 0 && prefill_tokens == 0) return b;

  // Linear layers: one GEMM over every token of the step; routed experts only where touched.
  const double tokens = streams + prefill_tokens;
  const double touched = touched_experts(experts_, active_experts_, tokens);
  const double weight_bytes = dense_weight_bytes_ + moe_layers_ * touched * expert_bytes_;
  // Prefill's routed experts: each touched expert multiplies only its share of the step's rows,
  // at rows / (rows + expert_gemm_half_rows) of the prefill rate.
  double expert_prefill_slowdown = 1.0;
  if (setup_.engine.expert_gemm_half_rows > 0 && prefill_tokens > 0 && experts_ > 0) {
    const double rows = tokens * active_experts_ / std::max(1.0, touched);
    expert_prefill_slowdown = (rows + setup_.engine.expert_gemm_half_rows) / rows;
  }
  const double prefill_linear_flops = active_linear_flops_per_token_ +
                                      routed_expert_flops_per_token_ * (expert_prefill_slowdown - 1.0);
  const double linear_compute_s = active_linear_flops_per_token_ * streams / decode_flops_ +
                                  prefill_linear_flops * prefill_tokens / prefill_flops_;
  const double linear_memory_s = weight_bytes / weight_bandwidth_bytes_per_s_;
  b.linear_s = std::max(linear_memory_s, linear_compute_s);
  b.linear_compute_bound = linear_compute_s > linear_memory_s;

  // LM head: logits for each decode token and the last token of each chunk that ends a prompt
  // (a prompt computed in several micro-batches samples only after the last).
  const double logit_rows = streams + sampling_chunks;
  b.lm_head_s = logit_rows > 0 ? std::max(lm_head_bytes_ / bandwidth_bytes_per_s_,
                                          lm_head_flops_per_token_ * logit_rows / decode_flops_)
                               : 0.0;

  // Attention. Decode: every stream reads its whole context; blocks of the shared prefix are
  // re-read by each stream but partly served on chip (shared_prefix_reuse).
  double context_sum = 0;
  double sliding_sum = 0;
  int64_t shortest = decode_contexts.empty() ? 0 : decode_contexts.front();
  for (int64_t c : decode_contexts) {
    const double ctx = static_cast<double>(std::max<int64_t>(0, c));
    context_sum += ctx;
    sliding_sum += window > 0 ? std::min(ctx, window) : 0.0;
    shortest = std::min(shortest, c);
  }
  const double shared = static_cast<double>(std::clamp<int64_t>(shared_prefix_tokens, 0, std::max<int64_t>(0, shortest)));
  const double reads_of_shared = streams > 0 ? 1.0 + (streams - 1.0) * (1.0 - setup_.engine.shared_prefix_reuse) : 0.0;
  const double decode_kv_tokens = context_sum - streams * shared + shared * reads_of_shared;
  const double kv_bytes = full_kv_bytes_per_token_ * (decode_kv_tokens + prefill_kv_read_tokens + prefill_tokens) +
                          sliding_kv_bytes_per_token_ * (sliding_sum + std::min(prefill_kv_read_tokens, window * chunk_count));
  const double attention_compute_s =
      (full_attention_flops_per_pair_ * context_sum + sliding_attention_flops_per_pair_ * sliding_sum) /
          attention_decode_flops_ +
      (full_prefill_flops_per_pair_ * prefill_pairs_full + sliding_prefill_flops_per_pair_ * prefill_pairs_sliding) /
          attention_prefill_flops_;
  const double score_bytes =
      full_score_bytes_per_pair_ * prefill_pairs_full + sliding_score_bytes_per_pair_ * prefill_pairs_sliding;
  b.attention_s = std::max((kv_bytes + score_bytes) / kv_bandwidth_bytes_per_s_, attention_compute_s);

  // Linear-attention layers: each sequence in the step reads and writes its recurrent state.
  b.state_s = state_traffic_bytes_ * (streams + chunk_count) / bandwidth_bytes_per_s_;

  b.overhead_s = setup_.engine.step_overhead_s;
  if (!setup_.cuda_graphs)  // eager: every layer's kernels launched from Python each step
    b.overhead_s += setup_.engine.eager_overhead_s_per_layer * static_cast<double>(setup_.model.layers);
  // A GPU of several dies (Apple's Ultra) synchronises them after each layer's kernels.
  b.overhead_s += setup_.engine.die_sync_s_per_layer * static_cast<double>(setup_.model.layers) *
                  static_cast<double>(std::max(0, setup_.gpu.dies - 1));
  b.total_s = b.overhead_s + b.linear_s + b.lm_head_s + b.attention_s + b.state_s;
  return b;
}

double PerfModel::step_time_s(std::span<const int64_t> decode_contexts, std::span<const PrefillChunk> chunks,
                              int64_t shared_prefix_tokens) const {
  return step_breakdown(decode_contexts, chunks, shared_prefix_tokens).total_s;
}

double PerfModel::prefill_chunk_time_s(int64_t start_position, int64_t tokens, bool samples) const {
  const PrefillChunk chunk{start_position, tokens, samples};
  return step_time_s({}, std::span<const PrefillChunk>(&chunk, 1));
}

double PerfModel::prefill_compute_time_s(int64_t prompt_tokens) const {
  const int64_t step_tokens = std::max<int64_t>(1, setup_.batched_tokens());
  double total = 0;
  for (int64_t start = 0; start < prompt_tokens; start += step_tokens)
    total += prefill_chunk_time_s(start, std::min(step_tokens, prompt_tokens - start),
                                  /*samples=*/start + step_tokens >= prompt_tokens);
  return total;
}

double PerfModel::request_cpu_time_s(int64_t prompt_tokens) const {
  return setup_.engine.request_overhead_s +
         setup_.engine.tokenize_s_per_token * static_cast<double>(std::max<int64_t>(0, prompt_tokens));
}

int64_t PerfModel::kv_capacity_tokens() const {
  if (memory_.kv_pool_bytes <= 0 || memory_.kv_bytes_per_token <= 0) return 0;
  return static_cast<int64_t>(std::floor(memory_.kv_pool_bytes / memory_.kv_bytes_per_token));
}

double decode_step_time_s(const Setup& setup, std::span<const int64_t> contexts, int64_t shared_prefix_tokens) {
  return PerfModel(setup).decode_step_time_s(contexts, shared_prefix_tokens);
}

double prefill_time_s(const Setup& setup, int64_t prompt_tokens) { return PerfModel(setup).prefill_time_s(prompt_tokens); }

int64_t kv_capacity_tokens(const Setup& setup) { return PerfModel(setup).kv_capacity_tokens(); }

}  // namespace sm::calc
