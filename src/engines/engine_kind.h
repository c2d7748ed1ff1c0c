#pragma once
// The engines speedmatrix knows, and what each can do over HTTP (see shared engines.md).
#include <cstdint>
#include <string_view>

namespace sm {

enum class EngineKind : uint8_t { Vllm, Sglang, LlamaCpp, Tgi, Ollama, TensorRtLlm, LmDeploy, OpenAi };

/// "vllm", "sglang", "llamacpp", "tgi", "ollama", "trtllm", "lmdeploy", "openai".
std::string_view to_string(EngineKind kind);

/// What an engine accepts in a completion request and offers around it.
struct EngineCapabilities {
  bool ignore_eos = false;              ///< accepts "ignore_eos": true
  bool min_tokens = false;              ///< accepts "min_tokens"
  bool continuous_usage = false;        ///< stream_options.continuous_usage_stats puts usage on every chunk
  bool timings_per_token = false;       ///< llama.cpp: "timings_per_token" gives cumulative predicted_n
  bool token_id_prompts = false;        ///< /v1/completions accepts a list of token ids as prompt
  bool forces_output_length = false;    ///< some way to get exactly max_tokens tokens
};

EngineCapabilities capabilities_of(EngineKind kind);

}  // namespace sm
