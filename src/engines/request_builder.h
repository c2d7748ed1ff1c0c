#pragma once
// Builds the JSON body of a streamed completion request for an engine, with every sampling
// setting explicit (servers otherwise apply their own generation defaults).
#include <cstdint>
#include <string>
#include <vector>

#include "engines/api_kind.h"
#include "engines/engine_kind.h"

namespace sm {

/// One message of a chat conversation.
struct ChatMessage {
  std::string role;     ///< "user", "assistant", "system"
  std::string content;
};

struct CompletionSpec {
  std::string model;        ///< model id
  std::string prompt;       ///< prompt text (chat: the single user message)
  int64_t max_tokens = 1;   ///< output tokens asked for
  double temperature = 0;   ///< sent as is
  bool force_length = true; ///< add the engine's fields that make it produce exactly max_tokens
  bool stream = true;       ///< false: one JSON answer (no stream_options, no per-token timings)
  /// Chat: the whole conversation instead of `prompt` (the sessions workload's turns); empty: one
  /// user message of `prompt`. Not used by the completions API.
  std::vector<ChatMessage> messages;
};

/// The request path for the API: "/v1/completions" or "/v1/chat/completions".
std::string_view completion_path(ApiKind api);

/// The body: model, prompt/messages, max_tokens, temperature, stream, stream_options
/// (include_usage, and continuous_usage_stats where the engine has it), and where accepted
/// ignore_eos, min_tokens (vLLM, SGLang) or timings_per_token (llama.cpp). Not streamed
/// (spec.stream false): "stream": false and neither stream_options nor timings_per_token.
std::string build_completion_body(EngineKind kind, ApiKind api, const CompletionSpec& spec);

}  // namespace sm
