#pragma once
// The shape of a llama-architecture transformer: presets sized for CPU tests, validation, and
// the sizes that follow from a shape (parameters, KV cache per token).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "gguf/gguf_types.h"

namespace sm::gguf {

/// Hyper-parameters of a llama model as GGUF stores them (llama.* keys).
struct ModelShape {
  /// Preset name ("tiny", "small", "medium") or "custom" once a dimension was overridden.
  std::string name = "custom";
  /// Transformer blocks (llama.block_count).
  uint32_t layers = 0;
  /// Embedding width (llama.embedding_length); = heads x head_dim.
  uint32_t hidden = 0;
  /// Query heads (llama.attention.head_count).
  uint32_t heads = 0;
  /// Key/value heads (llama.attention.head_count_kv); divides heads (grouped-query attention).
  uint32_t kv_heads = 0;
  /// Feed-forward width (llama.feed_forward_length).
  uint32_t ffn = 0;
  /// Training context in tokens (llama.context_length); llama-server's default -c 0 uses it.
  uint32_t ctx_train = 0;

  /// hidden / heads.
  uint32_t head_dim() const { return heads == 0 ? 0 : hidden / heads; }
  /// Width of the K (and of the V) projection: kv_heads x head_dim.
  uint32_t kv_width() const { return kv_heads * head_dim(); }
  /// Bytes of K and V cache per token of context with an f16 cache (llama.cpp's default).
  uint64_t kv_bytes_per_token_f16() const;
  /// Weights of the model with a vocabulary of `vocab_size` tokens (untied output matrix).
  uint64_t parameter_count(uint32_t vocab_size) const;
};

/// Names of the presets, smallest first.
std::vector<std::string_view> preset_names();
/// The preset called `name`; InvalidArgument listing the presets when there is none.
Result<ModelShape> preset_shape(std::string_view name);

/// Checks that llama.cpp can build the shape with `type` weights; the error says which
/// dimension is wrong and why (e.g. "--hidden 100 is not divisible by --heads 3").
Result<void> validate(const ModelShape& shape, TensorType type);

}  // namespace sm::gguf
