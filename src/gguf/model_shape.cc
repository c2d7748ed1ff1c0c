#include "gguf/model_shape.h"

#include <array>
#include <fmt/format.h>

namespace sm::gguf {

namespace {

// Sized for end-to-end tests on a 2-core CPU (speeds measured in docs/llama-server-notes.md):
// tiny decodes in about a millisecond per token, small is a few times slower, medium has
// enough arithmetic per token that the model, not HTTP, sets the pace.
const std::array<ModelShape, 3> kPresets = {{
    {"tiny", 2, 64, 4, 2, 192, 32768},
    {"small", 4, 256, 8, 4, 768, 32768},
    {"medium", 8, 512, 8, 4, 1536, 32768},
}};

// Largest value accepted for any dimension; far beyond real models, small enough that sizes
// computed from it never overflow 64 bits.
constexpr uint32_t kMaxDimension = 1u << 20;
constexpr uint32_t kMaxLayers = 1024;

}  // namespace

uint64_t ModelShape::kv_bytes_per_token_f16() const {
  return uint64_t{2} * layers * kv_width() * 2;  // K and V, 2 bytes per f16 value
}

uint64_t ModelShape::parameter_count(uint32_t vocab_size) const {
  const uint64_t h = hidden;
  const uint64_t per_layer = 2 * h                 // attn_norm, ffn_norm
                             + h * h * 2           // attn_q, attn_output
                             + h * kv_width() * 2  // attn_k, attn_v
                             + h * ffn * 3;        // ffn_gate, ffn_up, ffn_down
  return per_layer * layers + h * vocab_size * 2 + h;  // + token_embd, output, output_norm
}

std::vector<std::string_view> preset_names() {
  std::vector<std::string_view> names;
  for (const auto& p : kPresets) names.push_back(p.name);
  return names;
}

Result<ModelShape> preset_shape(std::string_view name) {
  for (const auto& p : kPresets)
    if (p.name == name) return p;
  return fail(ErrorCode::InvalidArgument,
              fmt::format("unknown shape '{}' (use {})", name, fmt::join(preset_names(), ", ")));
}

Result<void> validate(const ModelShape& s, TensorType type) {
  auto bad = [](std::string message) { return fail(ErrorCode::InvalidArgument, std::move(message)); };
  if (s.layers == 0) return bad("--layers must be at least 1");
  if (s.layers > kMaxLayers) return bad(fmt::format("--layers {} is more than {}", s.layers, kMaxLayers));
  struct Dim {
    const char* flag;
    uint32_t value;
  };
  for (const Dim& d : {Dim{"--hidden", s.hidden}, Dim{"--heads", s.heads}, Dim{"--kv-heads", s.kv_heads},
                       Dim{"--ffn", s.ffn}, Dim{"--ctx", s.ctx_train}}) {
    if (d.value == 0) return bad(fmt::format("{} must be at least 1", d.flag));
    if (d.value > kMaxDimension) return bad(fmt::format("{} {} is more than {}", d.flag, d.value, kMaxDimension));
  }
  if (s.hidden % s.heads != 0) {
    return bad(fmt::format("--hidden {} is not divisible by --heads {}", s.hidden, s.heads));
  }
  if (s.kv_heads > s.heads || s.heads % s.kv_heads != 0) {
    return bad(fmt::format("--kv-heads {} does not divide --heads {}", s.kv_heads, s.heads));
  }
  if (s.head_dim() % 2 != 0) {
    return bad(fmt::format("head size --hidden / --heads = {} must be even (rotary embedding)", s.head_dim()));
  }
  const uint64_t block = block_values(type);
  if (s.hidden % block != 0) {
    return bad(fmt::format("--hidden {} must be a multiple of {} for {} weights", s.hidden, block, to_string(type)));
  }
  if (s.ffn % block != 0) {
    return bad(fmt::format("--ffn {} must be a multiple of {} for {} weights", s.ffn, block, to_string(type)));
  }
  return {};
}

}  // namespace sm::gguf
