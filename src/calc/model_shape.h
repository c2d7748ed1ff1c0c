#pragma once
// The shape of a model's text decoder (data/models.json) and the parameter and byte counts the
// performance model derives from it: dense, GQA, MoE (active experts) and hybrid models whose
// linear-attention (Gated DeltaNet) layers keep a fixed recurrent state per sequence.
#include <cstdint>
#include <string>
#include <vector>

namespace sm::calc {

/// Linear-attention (Gated DeltaNet) layer shape; all zero for models without such layers.
struct LinearAttentionShape {
  int64_t key_heads = 0;               ///< key (and query) heads
  int64_t value_heads = 0;             ///< value heads; the recurrent state is per value head
  int64_t key_head_dim = 0;            ///< elements per key head
  int64_t value_head_dim = 0;          ///< elements per value head
  int64_t conv_kernel = 0;             ///< causal conv1d width; the conv state keeps kernel − 1 steps
  int64_t state_bytes_per_element = 4; ///< recurrent state element size (float32 in vLLM and SGLang)
};

/// Multi-head latent attention (DeepSeek-V2/V3): K and V are rebuilt per head from one compressed
/// latent per token, so the cache holds kv_lora_rank + qk_rope_head_dim elements per token and
/// layer, not kv_heads × head_dim × 2. All zero for models without MLA.
struct MlaShape {
  int64_t q_lora_rank = 0;        ///< rank of the query down-projection (0: queries projected directly)
  int64_t kv_lora_rank = 0;       ///< width of the compressed KV latent (the cached part)
  int64_t qk_nope_head_dim = 0;   ///< per-head query/key elements without rotary position
  int64_t qk_rope_head_dim = 0;   ///< per-head rotary elements; the key's are shared and cached
  int64_t v_head_dim = 0;         ///< per-head value elements
  bool present() const { return kv_lora_rank > 0; }
};

/// Architecture of one model's text decoder.
struct ModelShape {
  std::string id;                          ///< catalog key, e.g. "qwen3.5-4b"
  std::string name;                        ///< display name, e.g. "Qwen3.5-4B"
  std::vector<std::string> aliases;        ///< other names accepted (e.g. Hugging Face repo ids)
  int64_t layers = 0;                      ///< decoder layers of every kind
  int64_t full_attention_layers = 0;       ///< softmax-attention layers whose KV grows with context
  int64_t sliding_window_layers = 0;       ///< softmax-attention layers whose KV is capped at sliding_window
  int64_t sliding_window = 0;              ///< window of those layers, tokens
  int64_t hidden_size = 0;                 ///< residual width
  int64_t intermediate_size = 0;           ///< dense SwiGLU MLP width (0 when every layer is MoE)
  int64_t q_heads = 0;                     ///< query heads of a softmax-attention layer
  int64_t kv_heads = 0;                    ///< key/value heads (GQA)
  int64_t head_dim = 0;                    ///< elements per attention head
  bool attention_output_gate = false;      ///< q_proj also emits a gate as wide as the attention output
  int64_t vocab_size = 0;                  ///< rows of the embedding and the LM head
  bool tied_embeddings = false;            ///< LM head shares the embedding matrix (one copy in memory)
  int64_t max_position = 0;                ///< longest context the model supports, tokens
  int64_t experts = 0;                     ///< routed experts per MoE layer (0: dense)
  int64_t active_experts = 0;              ///< experts each token is routed to
  int64_t expert_intermediate_size = 0;    ///< SwiGLU width of one routed expert
  int64_t shared_expert_intermediate_size = 0;  ///< SwiGLU width of the always-on shared expert (0: none)
  int64_t moe_layers = 0;                  ///< layers with MoE MLP (the rest dense); 0 with experts > 0 means all
  LinearAttentionShape linear_attention;   ///< shape of the linear-attention layers
  MlaShape mla;                            ///< multi-head latent attention (replaces q/k/v/o and the KV layout)
  std::string source;                      ///< where the shape comes from

  /// Layers that are neither full nor sliding-window attention (Gated DeltaNet).
  int64_t linear_attention_layers() const { return layers - full_attention_layers - sliding_window_layers; }
  /// Layers whose MLP is MoE.
  int64_t moe_layer_count() const { return experts > 0 ? (moe_layers > 0 ? moe_layers : layers) : 0; }
};

/// Parameter counts by tensor class, the unit quantisation applies to. Norms and biases are
/// left out (well under 0.1% of any catalog model).
struct ParamCounts {
  double attention = 0;               ///< q/k/v/o projections of all softmax-attention layers
  double linear_attention = 0;        ///< GDN in_proj_qkvz and out_proj of all linear-attention layers
  double linear_attention_small = 0;  ///< GDN in_proj_a/b and conv1d (tiny; usually kept 16-bit)
  double mlp = 0;                     ///< dense SwiGLU MLPs
  double experts_total = 0;           ///< all routed experts of all MoE layers
  double expert_one = 0;              ///< one routed expert of one layer
  double shared_expert = 0;           ///< shared experts of all MoE layers
  double router = 0;                  ///< MoE router (gate) matrices
  double embedding = 0;               ///< token embedding matrix
  double lm_head = 0;                 ///< output projection (the same matrix as embedding when tied)

  /// Linear-layer parameters one token multiplies by (experts: only the active ones), LM head excluded.
  double active_linear = 0;
  /// Every parameter stored once (tied embeddings counted once).
  double total = 0;
};

/// Counts the parameters of `shape` by tensor class.
ParamCounts count_params(const ModelShape& shape);

/// Bytes of K and V one token adds to the cache of every softmax-attention layer together
/// (sliding-window layers included; they stop growing at the window).
double kv_bytes_per_token(const ModelShape& shape, double kv_bytes_per_element);

/// Bytes one token adds to the cache of one softmax-attention layer: kv_heads × head_dim × 2
/// elements, or for MLA the latent plus the shared rotary key (kv_lora_rank + qk_rope_head_dim).
double kv_bytes_per_token_per_layer(const ModelShape& shape, double kv_bytes_per_element);

/// Attention FLOPs per (query, key) pair in one layer. Decode (`prefill` false) with MLA uses the
/// absorbed form (scores and values over the latent: q_heads × (4 × kv_lora_rank + 2 × rope));
/// prefill with MLA and every non-MLA model: 2 × q_heads × (qk dims + v dims).
double attention_flops_per_pair_per_layer(const ModelShape& shape, bool prefill);

/// Bytes of recurrent state one sequence keeps across all linear-attention layers: the
/// value_heads × key_head_dim × value_head_dim matrix in the state dtype plus the conv state
/// ((kernel − 1) × (2 × key_dim + value_dim) in 16-bit).
double linear_state_bytes_per_sequence(const ModelShape& shape);

}  // namespace sm::calc
