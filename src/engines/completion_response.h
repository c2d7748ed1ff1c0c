#pragma once
// A non-streamed completion's answer (OpenAI completions or chat shape): its text, why it
// stopped and the prompt's length by the server. Used for unmeasured requests that need what the
// model said (the retrieval check), never on the measuring path.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace sm {

struct CompletionResponse {
  std::string text;                      ///< choices[0].text, or choices[0].message.content (chat)
  std::string finish_reason;             ///< choices[0].finish_reason; empty when null or absent
  std::optional<int64_t> prompt_tokens;  ///< usage.prompt_tokens
};

/// Parses a completion body. Fails when it is not JSON, carries an "error" object, or has no
/// choices[0]; a null or missing text is "".
Result<CompletionResponse> parse_completion_response(std::string_view body);

}  // namespace sm
