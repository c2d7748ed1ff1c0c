#pragma once
// Turns one SSE event of an OpenAI-style completion stream into the facts the benchmark needs.
// simdjson's DOM parser on the hot path (it picks the best SIMD kernel at run time, which the
// on-demand API of Debian's simdjson 3.0 does not): one parser per owner, reused for every chunk.
// No <expected> here so the fuzz target builds with clang 14.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

namespace sm {

/// Why a choice ended, as the server said it.
enum class FinishReason : uint8_t {
  None,    ///< not finished in this chunk
  Length,  ///< hit max_tokens: what a benchmark request should end with
  Stop,    ///< EOS or stop string: ended early
  Other,   ///< anything else the server named
};

/// What one stream event carried. Counts are -1 when the chunk did not say.
struct ChunkInfo {
  enum class Kind : uint8_t {
    Data,   ///< a JSON chunk
    Done,   ///< the "[DONE]" sentinel
    Error,  ///< a JSON object with an "error" member (server-side failure mid-stream)
    Invalid ///< not JSON, or JSON of the wrong shape: a protocol error
  };
  Kind kind = Kind::Invalid;
  bool has_choices = false;         ///< "choices" held at least one element
  bool has_token = false;           ///< choice 0 carried generated output: non-empty text, content,
                                    ///< reasoning, or token ids (role-only chunks do not count)
  int32_t token_ids = -1;           ///< length of choice 0 "token_ids" (vLLM return_token_ids)
  int64_t usage_prompt_tokens = -1;      ///< usage.prompt_tokens
  int64_t usage_completion_tokens = -1;  ///< usage.completion_tokens (cumulative when continuous)
  int64_t usage_cached_tokens = -1;      ///< usage.prompt_tokens_details.cached_tokens (vLLM, SGLang)
  int64_t timings_predicted_n = -1;      ///< llama.cpp timings.predicted_n (cumulative)
  double timings_predicted_per_second = -1;  ///< llama.cpp timings.predicted_per_second
  int64_t timings_prompt_n = -1;         ///< llama.cpp timings.prompt_n (prompt tokens processed)
  int64_t timings_cache_n = -1;          ///< llama.cpp timings.cache_n (prompt tokens reused)
  FinishReason finish = FinishReason::None;
  std::string_view id;        ///< the chunk's "id" (the server's request id); points into the
                              ///< parser, valid until its next parse(); empty when absent
  /// Choice 0's generated text ("text", "content", delta/message "content") and its reasoning
  /// (delta/message "reasoning_content" or "reasoning"), JSON-unescaped; point into the parser
  /// like `id`. What the output checks read (metrics/output_check.h).
  std::string_view text;
  std::string_view reasoning;
  std::string error_message;  ///< for Kind::Error / Kind::Invalid: what went wrong
};

/// Reusable parser. Not thread-safe: one per thread or per stream owner.
class ChunkParser {
 public:
  ChunkParser();
  /// Parses one SSE event's data. Never throws; malformed input gives Kind::Invalid.
  void parse(std::string_view event_data, ChunkInfo& out);

 private:
  simdjson::dom::parser parser_;
  std::vector<char> padded_;  ///< copy of the event with simdjson's required padding
};

}  // namespace sm
