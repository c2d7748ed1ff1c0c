#include "calc/model_shape.h"

namespace sm::calc {

ParamCounts count_params(const ModelShape& m) {
  ParamCounts p;
  const double h = static_cast<double>(m.hidden_size);
  const double softmax_layers = static_cast<double>(m.full_attention_layers + m.sliding_window_layers);
  const double q_width = static_cast<double>(m.q_heads * m.head_dim);
  const double kv_width = static_cast<double>(m.kv_heads * m.head_dim);
  // q_proj (twice as wide with an output gate), k_proj, v_proj, o_proj.
  const double q_proj = h * q_width * (m.attention_output_gate ? 2.0 : 1.0);
  p.attention = softmax_layers * (q_proj + 2.0 * h * kv_width + q_width * h);
  if (m.mla.present()) {
    // q_a (hidden -> q_lora) and q_b (q_lora -> heads x (nope + rope)), or one q_proj without a
    // q_lora; kv_a_proj_with_mqa (hidden -> kv_lora + rope); kv_b (kv_lora -> heads x (nope + v));
    // o_proj (heads x v -> hidden).
    const auto& a = m.mla;
    const double heads = static_cast<double>(m.q_heads);
    const double qk = static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim);
    const double q = a.q_lora_rank > 0
                         ? h * static_cast<double>(a.q_lora_rank) + static_cast<double>(a.q_lora_rank) * heads * qk
                         : h * heads * qk;
    const double kv_a = h * static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim);
    const double kv_b = static_cast<double>(a.kv_lora_rank) * heads *
                        static_cast<double>(a.qk_nope_head_dim + a.v_head_dim);
    const double o = heads * static_cast<double>(a.v_head_dim) * h;
    p.attention = softmax_layers * (q + kv_a + kv_b + o);
  }

  const auto& la = m.linear_attention;
  const double linear_layers = static_cast<double>(m.linear_attention_layers());
  if (linear_layers > 0) {
    const double key_dim = static_cast<double>(la.key_heads * la.key_head_dim);
    const double value_dim = static_cast<double>(la.value_heads * la.value_head_dim);
    // in_proj_qkvz: q, k (key_dim each), v and the output gate z (value_dim each); out_proj.
    p.linear_attention = linear_layers * (h * (2.0 * key_dim + 2.0 * value_dim) + value_dim * h);
    // in_proj_a / in_proj_b (one scalar per value head each) and the depthwise conv1d.
    p.linear_attention_small = linear_layers * (h * 2.0 * static_cast<double>(la.value_heads) +
                                                (2.0 * key_dim + value_dim) * static_cast<double>(la.conv_kernel));
  }

  const double moe_layers = static_cast<double>(m.moe_layer_count());
  const double dense_layers = static_cast<double>(m.layers) - moe_layers;
  p.mlp = dense_layers * 3.0 * h * static_cast<double>(m.intermediate_size);
  if (moe_layers > 0) {
    p.expert_one = 3.0 * h * static_cast<double>(m.expert_intermediate_size);
    p.experts_total = moe_layers * static_cast<double>(m.experts) * p.expert_one;
    p.router = moe_layers * h * static_cast<double>(m.experts);
    if (m.shared_expert_intermediate_size > 0)
      p.shared_expert = moe_layers * (3.0 * h * static_cast<double>(m.shared_expert_intermediate_size) + h);
  }
  p.embedding = static_cast<double>(m.vocab_size) * h;
  p.lm_head = p.embedding;

  const double active_experts = moe_layers * static_cast<double>(m.active_experts) * p.expert_one;
  p.active_linear = p.attention + p.linear_attention + p.linear_attention_small + p.mlp + active_experts +
                    p.shared_expert + p.router;
  p.total = p.attention + p.linear_attention + p.linear_attention_small + p.mlp + p.experts_total +
            p.shared_expert + p.router + p.embedding + (m.tied_embeddings ? 0.0 : p.lm_head);
  return p;
}

double kv_bytes_per_token_per_layer(const ModelShape& m, double kv_bytes_per_element) {
  if (m.mla.present())
    return static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * kv_bytes_per_element;
  return static_cast<double>(m.kv_heads * m.head_dim) * 2.0 * kv_bytes_per_element;
}

double kv_bytes_per_token(const ModelShape& m, double kv_bytes_per_element) {
  return static_cast<double>(m.full_attention_layers + m.sliding_window_layers) *
         kv_bytes_per_token_per_layer(m, kv_bytes_per_element);
}

double attention_flops_per_pair_per_layer(const ModelShape& m, bool prefill) {
  const double heads = static_cast<double>(m.q_heads);
  if (m.mla.present()) {
    const auto& a = m.mla;
    if (!prefill)  // absorbed: q·[latent, rope key] and p·latent, per head
      return heads * (4.0 * static_cast<double>(a.kv_lora_rank) + 2.0 * static_cast<double>(a.qk_rope_head_dim));
    return 2.0 * heads * static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim);
  }
  // QK^T and PV: 2 multiply-adds per query head and head element.
  return 4.0 * heads * static_cast<double>(m.head_dim);
}

double linear_state_bytes_per_sequence(const ModelShape& m) {
  const auto& la = m.linear_attention;
  if (m.linear_attention_layers() <= 0) return 0;
  const double key_dim = static_cast<double>(la.key_heads * la.key_head_dim);
  const double value_dim = static_cast<double>(la.value_heads * la.value_head_dim);
  const double recurrent = static_cast<double>(la.value_heads * la.key_head_dim * la.value_head_dim) *
                           static_cast<double>(la.state_bytes_per_element);
  const double conv = static_cast<double>(la.conv_kernel > 0 ? la.conv_kernel - 1 : 0) *
                      (2.0 * key_dim + value_dim) * 2.0;
  return static_cast<double>(m.linear_attention_layers()) * (recurrent + conv);
}

}  // namespace sm::calc
