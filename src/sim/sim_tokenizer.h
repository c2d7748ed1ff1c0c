#pragma once
// The simulated engine's tokenizer. It is not a real tokenizer: it is a rule simple enough that a
// client can build a prompt of an exact token length without asking, and that /tokenize,
// usage.prompt_tokens and the scheduler all agree on.
//
// The rule (docs/sim.md repeats it):
// - Text is split at ASCII whitespace (space, \t, \n, \v, \f, \r); whitespace costs nothing.
// - Each run of non-whitespace bytes ("word") is ceil(bytes / 16) tokens: words of up to 16 bytes
//   are one token, longer ones are cut into 16-byte pieces.
// - A token's id is a 64-bit FNV-1a hash of its bytes, folded into [kFirstTextId, kVocabSize).
// - No BOS/EOS is added to completion prompts (as for Qwen models under vLLM).
// - Chat requests: each message costs its content's tokens plus kChatTokensPerMessage
//   (<|im_start|> role \n … <|im_end|> \n), and the generation prompt adds
//   kChatGenerationPromptTokens (<|im_start|> assistant \n), Qwen's ChatML layout.
// - A prompt given as a list of token ids is taken as is (ids must be in [0, kVocabSize)).
#include <cstdint>
#include <string_view>
#include <vector>

namespace sm::sim {

class SimTokenizer {
 public:
  static constexpr int32_t kVocabSize = 248'320;     ///< ids are in [0, kVocabSize)
  static constexpr int32_t kFirstTextId = 1'000;     ///< ids below are special tokens
  static constexpr int32_t kPieceBytes = 16;         ///< a word longer than this is several tokens
  static constexpr int32_t kChatTokensPerMessage = 5;       ///< template tokens around a message
  static constexpr int32_t kChatGenerationPromptTokens = 3; ///< "<|im_start|>assistant\n"
  static constexpr int32_t kImStartId = 1;   ///< <|im_start|>
  static constexpr int32_t kImEndId = 2;     ///< <|im_end|>
  static constexpr int32_t kNewlineId = 3;   ///< the "\n" after a role and after <|im_end|>
  static constexpr int32_t kEosId = 4;       ///< end of sequence (emitted as empty text)

  /// Tokens in `text` under the rule above. Thread-safe (stateless).
  static int64_t count(std::string_view text);
  /// Appends the ids of `text` to `out`. Thread-safe (stateless).
  static void encode(std::string_view text, std::vector<int32_t>& out);
  /// Byte offset in `text` where its token number `token` (0-based) starts; text.size() when
  /// `text` has no more than `token` tokens. Thread-safe (stateless).
  static size_t token_offset(std::string_view text, int64_t token);
  /// Id of one piece (a word of at most kPieceBytes bytes).
  static int32_t piece_id(std::string_view piece);
  /// Appends the template tokens that open a message of `role`: <|im_start|> role \n.
  static void begin_message(std::string_view role, std::vector<int32_t>& out);
  /// Appends the template tokens that close a message: <|im_end|> \n.
  static void end_message(std::vector<int32_t>& out);
  /// Appends the generation prompt: <|im_start|> assistant \n.
  static void generation_prompt(std::vector<int32_t>& out);
};

}  // namespace sm::sim
