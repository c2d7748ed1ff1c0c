#pragma once
// Builds the simulated engine's completion responses in vLLM's exact shapes from preformatted
// pieces: the hot path (one SSE event per token per stream) appends a per-request head, the
// pre-escaped words and a few constant tails to a reused buffer, without a JSON library and
// without allocating once the buffer has grown.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/output_vocabulary.h"
#include "sim/request_sink.h"

namespace sm::sim {

/// What the formatter needs to know about one request.
struct StreamRequest {
  bool chat = false;              ///< chat.completion(.chunk) instead of text_completion
  bool continuous_usage = false;  ///< usage on every chunk
  bool return_token_ids = false;  ///< "token_ids" on every choice
  uint64_t text_seed = 0;         ///< picks the output words
  std::vector<std::string> answer_escaped;  ///< a scripted answer's words (" word", JSON-escaped): output
                                            ///< token i < size() is word i, the vocabulary's after it
  std::vector<int32_t> answer_ids;          ///< their token ids
  int64_t prompt_tokens = 0;      ///< usage.prompt_tokens
  std::string head;               ///< `{"id":…,"object":…,"created":…,"model":…,"choices":[` (make_head)
};

/// Thread-safe after construction (const methods only).
class ChunkFormatter {
 public:
  /// `id_nonce` makes response ids differ between servers (any value; the server uses its start time).
  explicit ChunkFormatter(std::string_view model_id, uint64_t id_nonce = 0);

  /// Writes request.head for a request with id number `request_number`, created at `created_s`
  /// (Unix seconds); `stream` picks chat.completion.chunk over chat.completion.
  void make_head(StreamRequest& request, uint64_t request_number, int64_t created_s, bool stream) const;

  /// Appends "data: {…}\n\n" carrying output tokens [from, to) (1-based count `to` = tokens so
  /// far) in one choice, with finish_reason when `finish` is set; `eos` means token to-1 is EOS
  /// and has no text.
  void append_token_event(std::string& out, const StreamRequest& request, int64_t from, int64_t to,
                          FinishKind finish, bool eos) const;
  /// Appends the chat stream's first event: delta {"role":"assistant","content":""}.
  void append_role_event(std::string& out, const StreamRequest& request) const;
  /// Appends the final usage event (choices: []) for `completion_tokens` outputs.
  /// The final usage event; with `cached_prompt_tokens` >= 0, usage.prompt_tokens_details.cached_tokens
  /// (what vLLM sends with --enable-prompt-tokens-details: the prompt tokens its prefix cache held).
  void append_usage_event(std::string& out, const StreamRequest& request, int64_t completion_tokens,
                          int64_t cached_prompt_tokens = -1) const;
  /// Makes `answer` (words separated by single spaces, each one token) the request's first output
  /// tokens; an empty answer clears it.
  static void set_answer(StreamRequest& request, std::string_view answer);
  /// Appends "data: [DONE]\n\n".
  static void append_done(std::string& out) { out.append("data: [DONE]\n\n"); }

  /// The non-streaming body of a finished request with `completion_tokens` outputs.
  std::string full_body(const StreamRequest& request, int64_t completion_tokens, FinishKind finish, bool eos) const;

 private:
  void append_usage(std::string& out, int64_t prompt_tokens, int64_t completion_tokens,
                    int64_t cached_prompt_tokens = -1) const;
  void append_text(std::string& out, const StreamRequest& request, int64_t from, int64_t to, bool eos) const;
  void append_token_ids(std::string& out, const StreamRequest& request, int64_t from, int64_t to, bool eos) const;

  std::string model_escaped_;  ///< model id escaped for a JSON string
  uint64_t id_nonce_;          ///< mixed into response ids
  const OutputVocabulary& vocabulary_;
};

/// finish_reason text: "length", "stop", or null.
std::string_view finish_reason_json(FinishKind finish);

}  // namespace sm::sim
