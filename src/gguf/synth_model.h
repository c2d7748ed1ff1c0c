#pragma once
// A llama-architecture GGUF model with seeded random weights and a one-character-per-token
// vocabulary, which llama.cpp loads and serves like any model. Decode speed depends on the shape
// only, so this stands in for real models that cannot be downloaded in tests.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "gguf/gguf_types.h"
#include "gguf/model_shape.h"

namespace sm::gguf {

/// The vocabulary every synthetic model carries: a GPT-2 style byte-level BPE vocabulary with
/// no merges, holding tab, newline and the 95 printable ASCII characters, then four control
/// tokens. One ASCII character is exactly one token, and every generated token is a whole
/// UTF-8 character, so a stream never holds back partial characters. The weights make sure the
/// control tokens are never generated: each generated token streams as exactly one character,
/// and generation never ends by itself (only max_tokens / n_predict or a stop string end it).
struct SynthVocab {
  /// llama.cpp token type of the characters.
  static constexpr int32_t kNormal = 1;
  /// llama.cpp token type of <s>, </s>, <|im_start|> and <|im_end|>.
  static constexpr int32_t kControl = 3;

  /// Token texts in id order, in GPT-2's byte-to-unicode spelling (space is "\u0120").
  std::vector<std::string> tokens;
  /// llama.cpp token types: 1 normal, 3 control.
  std::vector<int32_t> types;
  /// "<s>", added before every prompt (tokenizer.ggml.add_bos_token = true).
  uint32_t bos_id = 0;
  /// "</s>".
  uint32_t eos_id = 0;
  /// "<|im_start|>" of the ChatML chat template.
  uint32_t im_start_id = 0;
  /// "<|im_end|>", the chat template's end of turn (also an end-of-generation token).
  uint32_t im_end_id = 0;

  uint32_t size() const { return static_cast<uint32_t>(tokens.size()); }
  /// Id of printable ASCII character, tab or newline `c`; -1 for any other byte.
  int32_t id_of(char c) const;
};

/// Builds the vocabulary (the same every time).
SynthVocab synth_vocab();

/// The ChatML template stored as tokenizer.chat_template.
extern const char* const kSynthChatTemplate;

/// What to write.
struct SynthOptions {
  /// Model dimensions; validated with validate(shape, type).
  ModelShape shape;
  /// Type of the matrices (norm vectors are always f32).
  TensorType type = TensorType::F16;
  /// Seed of the weights: the same seed, shape and type give the same file, byte for byte.
  uint64_t seed = 1;
  /// File to write (replaced atomically).
  std::string out_path;
};

/// What was written.
struct SynthSummary {
  /// Weights in the file.
  uint64_t parameters = 0;
  /// Size of the file.
  uint64_t file_size_bytes = 0;
  /// Tokens in the vocabulary.
  uint32_t vocab_size = 0;
  /// Tensors in the file.
  uint32_t tensors = 0;
};

/// Writes the model. InvalidArgument for a bad shape, Io when the file cannot be written.
Result<SynthSummary> write_synth_model(const SynthOptions& options);

}  // namespace sm::gguf
