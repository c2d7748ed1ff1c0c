#include "gguf/synth_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <span>

#include "core/rng.h"
#include "gguf/ggml_quant.h"
#include "gguf/gguf_writer.h"

namespace sm::gguf {

namespace {

// Weights are uniform in [-a, a] with a standard deviation of 0.02, the usual initialisation
// scale: RMS norms keep activations bounded, so generation never produces NaN or inf.
constexpr float kWeightStd = 0.02f;
constexpr float kRopeFreqBase = 10000.0f;
constexpr float kRmsNormEps = 1e-5f;

// Control tokens (<s>, </s>, <|im_start|>, <|im_end|>) must never be sampled: an end-of-sequence
// would end requests early, and the others stream as chunks with empty text. Hidden dimension 0
// is therefore a constant channel: every token embedding holds kConstantChannel there, no layer
// writes into it (row 0 of attn_output and ffn_down is zero), so after the final RMS norm it is
// large and positive at every position. Normal tokens' output rows are 0 in that column, the
// control tokens' rows are kControlLogitWeight: their logits sit tens of units below the others.
constexpr float kConstantChannel = 16.0f;
constexpr float kControlLogitWeight = -4.0f;
// llama_ftype values for general.file_type.
uint32_t file_type_of(TensorType type) {
  switch (type) {
    case TensorType::F32: return 0;   // LLAMA_FTYPE_ALL_F32
    case TensorType::F16: return 1;   // LLAMA_FTYPE_MOSTLY_F16
    case TensorType::Q8_0: return 7;  // LLAMA_FTYPE_MOSTLY_Q8_0
  }
  return 0;
}

// GPT-2's byte-to-unicode map: printable Latin-1 bytes stand for themselves, the others are
// shifted to U+0100 and up. Returns the UTF-8 spelling of the stand-in for `byte`.
std::string gpt2_byte_text(unsigned char byte) {
  auto printable = [](unsigned b) { return (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || b >= 0xae; };
  unsigned code = byte;
  if (!printable(byte)) {
    unsigned n = 0;
    for (unsigned b = 0; b < byte; ++b)
      if (!printable(b)) ++n;
    code = 256 + n;
  }
  std::string out;
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else {
    out += static_cast<char>(0xc0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3f));
  }
  return out;
}

// What a tensor is, for the few that get structure beyond random values.
enum class Role { Norm, TokenEmbedding, LayerOutput, Output, Other };

Role role_of(const TensorInfo& t) {
  if (t.dims.size() == 1) return Role::Norm;
  if (t.name == "token_embd.weight") return Role::TokenEmbedding;
  if (t.name == "output.weight") return Role::Output;
  if (t.name.ends_with(".attn_output.weight") || t.name.ends_with(".ffn_down.weight")) return Role::LayerOutput;
  return Role::Other;
}

// Fills one tensor: rows of dims[0] values (row r is output feature r, or token r for the
// embedding and output matrices), converted to the tensor's type.
void fill_tensor(uint64_t seed, size_t index, const TensorInfo& info, const SynthVocab& vocab,
                 std::span<std::byte> out) {
  const uint64_t row_values = info.dims[0];
  const uint64_t rows = info.values() / row_values;
  const uint64_t row_bytes = tensor_size_bytes(info.type, row_values);
  const Role role = role_of(info);
  std::vector<float> row(row_values);
  // One generator per tensor, so a tensor's values depend only on the seed and its index.
  Rng rng(seed * 0x9e3779b97f4a7c15ULL + index);
  const float a = kWeightStd * std::sqrt(3.0f);
  for (uint64_t r = 0; r < rows; ++r) {
    for (auto& v : row) v = role == Role::Norm ? 1.0f : static_cast<float>((rng.next_double() * 2.0 - 1.0) * a);
    switch (role) {
      case Role::TokenEmbedding: row[0] = kConstantChannel; break;
      case Role::LayerOutput:
        if (r == 0) std::fill(row.begin(), row.end(), 0.0f);
        break;
      case Role::Output:
        if (vocab.types[r] == SynthVocab::kControl) {
          std::fill(row.begin(), row.end(), 0.0f);
          row[0] = kControlLogitWeight;
        } else {
          row[0] = 0.0f;
        }
        break;
      case Role::Norm:
      case Role::Other: break;
    }
    std::span<std::byte> dst = out.subspan(r * row_bytes, row_bytes);
    switch (info.type) {
      case TensorType::F32:
        std::memcpy(dst.data(), row.data(), row_bytes);
        break;
      case TensorType::F16:
        for (uint64_t i = 0; i < row_values; ++i) {
          const uint16_t h = float_to_f16(row[i]);
          std::memcpy(dst.data() + 2 * i, &h, 2);
        }
        break;
      case TensorType::Q8_0:
        quantize_q8_0(row, dst);
        break;
    }
  }
}

}  // namespace

const char* const kSynthChatTemplate =
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

int32_t SynthVocab::id_of(char c) const {
  const auto b = static_cast<unsigned char>(c);
  if (b == '\t') return 0;
  if (b == '\n') return 1;
  if (b >= 0x20 && b <= 0x7e) return 2 + (b - 0x20);
  return -1;
}

SynthVocab synth_vocab() {
  SynthVocab v;
  auto add = [&v](std::string text, int32_t type) {
    v.tokens.push_back(std::move(text));
    v.types.push_back(type);
    return static_cast<uint32_t>(v.tokens.size() - 1);
  };
  add(gpt2_byte_text('\t'), SynthVocab::kNormal);
  add(gpt2_byte_text('\n'), SynthVocab::kNormal);
  for (unsigned b = 0x20; b <= 0x7e; ++b) add(gpt2_byte_text(static_cast<unsigned char>(b)), SynthVocab::kNormal);
  v.bos_id = add("<s>", SynthVocab::kControl);
  v.eos_id = add("</s>", SynthVocab::kControl);
  v.im_start_id = add("<|im_start|>", SynthVocab::kControl);
  v.im_end_id = add("<|im_end|>", SynthVocab::kControl);
  return v;
}

Result<SynthSummary> write_synth_model(const SynthOptions& options) {
  const ModelShape& s = options.shape;
  if (auto ok = validate(s, options.type); !ok) return std::unexpected(ok.error());
  if (options.out_path.empty()) return fail(ErrorCode::InvalidArgument, "no output file given");
  const SynthVocab vocab = synth_vocab();

  GgufWriter w;
  w.add("general.architecture", Value::string("llama"));
  w.add("general.type", Value::string("model"));
  w.add("general.name", Value::string(fmt::format("speedmatrix synth {} {}", s.name, to_string(options.type))));
  w.add("general.description",
        Value::string("Random weights written by speedmatrix synth-model; for speed tests only"));
  w.add("general.file_type", Value::u32(file_type_of(options.type)));
  w.add("general.quantization_version", Value::u32(2));
  w.add("general.alignment", Value::u32(kDefaultAlignment));
  w.add("llama.context_length", Value::u32(s.ctx_train));
  w.add("llama.embedding_length", Value::u32(s.hidden));
  w.add("llama.block_count", Value::u32(s.layers));
  w.add("llama.feed_forward_length", Value::u32(s.ffn));
  w.add("llama.attention.head_count", Value::u32(s.heads));
  w.add("llama.attention.head_count_kv", Value::u32(s.kv_heads));
  w.add("llama.rope.dimension_count", Value::u32(s.head_dim()));
  w.add("llama.rope.freq_base", Value::f32(kRopeFreqBase));
  w.add("llama.attention.layer_norm_rms_epsilon", Value::f32(kRmsNormEps));
  w.add("llama.vocab_size", Value::u32(vocab.size()));
  w.add("tokenizer.ggml.model", Value::string("gpt2"));
  w.add("tokenizer.ggml.pre", Value::string("default"));
  w.add("tokenizer.ggml.tokens", Value::string_array(vocab.tokens));
  w.add("tokenizer.ggml.token_type", Value::i32_array(vocab.types));
  w.add("tokenizer.ggml.merges", Value::string_array({}));
  w.add("tokenizer.ggml.bos_token_id", Value::u32(vocab.bos_id));
  w.add("tokenizer.ggml.eos_token_id", Value::u32(vocab.eos_id));
  w.add("tokenizer.ggml.eot_token_id", Value::u32(vocab.im_end_id));
  w.add("tokenizer.ggml.padding_token_id", Value::u32(vocab.eos_id));
  w.add("tokenizer.ggml.add_bos_token", Value::boolean(true));
  w.add("tokenizer.ggml.add_eos_token", Value::boolean(false));
  w.add("tokenizer.chat_template", Value::string(kSynthChatTemplate));
  w.add("speedmatrix.synth.shape", Value::string(s.name));
  w.add("speedmatrix.synth.seed", Value::u64(options.seed));

  const uint64_t h = s.hidden;
  const TensorType t = options.type;
  w.add_tensor("token_embd.weight", {h, vocab.size()}, t);
  for (uint32_t i = 0; i < s.layers; ++i) {
    const std::string p = fmt::format("blk.{}.", i);
    w.add_tensor(p + "attn_norm.weight", {h}, TensorType::F32);
    w.add_tensor(p + "attn_q.weight", {h, h}, t);
    w.add_tensor(p + "attn_k.weight", {h, s.kv_width()}, t);
    w.add_tensor(p + "attn_v.weight", {h, s.kv_width()}, t);
    w.add_tensor(p + "attn_output.weight", {h, h}, t);
    w.add_tensor(p + "ffn_norm.weight", {h}, TensorType::F32);
    w.add_tensor(p + "ffn_gate.weight", {h, s.ffn}, t);
    w.add_tensor(p + "ffn_up.weight", {h, s.ffn}, t);
    w.add_tensor(p + "ffn_down.weight", {s.ffn, h}, t);
  }
  w.add_tensor("output_norm.weight", {h}, TensorType::F32);
  w.add_tensor("output.weight", {h, vocab.size()}, t);

  const uint64_t seed = options.seed;
  auto ok = w.write(options.out_path, [seed, &vocab](size_t index, const TensorInfo& info, std::span<std::byte> out) {
    fill_tensor(seed, index, info, vocab, out);
  });
  if (!ok) return std::unexpected(ok.error());

  SynthSummary summary;
  for (const auto& ti : w.tensors()) summary.parameters += ti.values();
  summary.file_size_bytes = align_up(align_up(w.header_bytes().size(), kDefaultAlignment) + w.data_size_bytes(),
                                     kDefaultAlignment);
  summary.vocab_size = vocab.size();
  summary.tensors = static_cast<uint32_t>(w.tensors().size());
  return summary;
}

}  // namespace sm::gguf
