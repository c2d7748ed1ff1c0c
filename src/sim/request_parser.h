#pragma once
// Turns request bodies of the generation and tokenizer routes into scheduler requests or token
// lists, with vLLM's validation and messages. simdjson DOM: prompts can be megabytes long.
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "sim/api_error.h"
#include "sim/retrieval_answer.h"
#include "sim/sim_request_spec.h"

namespace sm::sim {

/// What validation needs to know about the served model.
struct ModelLimits {
  std::string model_id;            ///< served id; requests naming another model get 404
  std::string model_alias;         ///< also accepted (the plain model name); may be empty
  int64_t max_model_len = 0;       ///< prompt + output tokens at most
  int32_t block_size = 16;         ///< for the prompt's block hashes
  int64_t natural_length_min = 1;  ///< range of EOS positions without ignore_eos
  int64_t natural_length_max = 2;
  int64_t attention_window = 0;    ///< the model reads only the prompt's last this many tokens (0 = all)
};

/// A validated /v1/completions or /v1/chat/completions request.
struct GenerationRequest {
  SimRequestSpec spec;            ///< what the scheduler runs
  bool stream = false;            ///< SSE response
  bool include_usage = false;     ///< stream_options.include_usage: final usage chunk
  bool continuous_usage = false;  ///< stream_options.continuous_usage_stats: usage on every chunk
  bool return_token_ids = false;  ///< vLLM return_token_ids: "token_ids" on each choice
  uint64_t text_seed = 0;         ///< picks the output words (a hash of the prompt)
  /// The prompt asks the retrieval check's question: the answer's text (sim/retrieval_answer.h),
  /// streamed before the usual words and followed by EOS; empty otherwise.
  std::string answer;
};

/// Reusable; not thread-safe (one per server thread).
class RequestParser {
 public:
  /// Parses and validates a generation body; `chat` selects the chat route's fields.
  std::expected<GenerationRequest, ApiError> parse_generation(std::string_view body, bool chat,
                                                              const ModelLimits& limits);
  /// Parses a /tokenize body ({"prompt": ...} or {"messages": [...]}); the returned tokens stay
  /// valid until the next call.
  std::expected<const std::vector<int32_t>*, ApiError> parse_tokenize(std::string_view body, const ModelLimits& limits);
  /// Parses a /detokenize body ({"tokens": [...]}).
  std::expected<std::vector<int32_t>, ApiError> parse_detokenize(std::string_view body);

 private:
  std::expected<simdjson::dom::object, ApiError> parse_object(std::string_view body);
  std::expected<void, ApiError> read_prompt(simdjson::dom::element prompt);
  std::expected<void, ApiError> read_messages(simdjson::dom::element messages, bool add_generation_prompt);

  simdjson::dom::parser parser_;
  std::vector<int32_t> tokens_;  ///< prompt tokens of the request being parsed
  std::vector<PromptSegment> segments_;  ///< its texts (views into padded_'s parse) and where they start
  std::string padded_;           ///< body copy with simdjson's padding
};

}  // namespace sm::sim
