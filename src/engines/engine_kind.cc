#include "engines/engine_kind.h"

namespace sm {

std::string_view to_string(EngineKind kind) {
  switch (kind) {
    case EngineKind::Vllm: return "vllm";
    case EngineKind::Sglang: return "sglang";
    case EngineKind::LlamaCpp: return "llamacpp";
    case EngineKind::Tgi: return "tgi";
    case EngineKind::Ollama: return "ollama";
    case EngineKind::TensorRtLlm: return "trtllm";
    case EngineKind::LmDeploy: return "lmdeploy";
    case EngineKind::OpenAi: return "openai";
  }
  return "openai";
}

EngineCapabilities capabilities_of(EngineKind kind) {
  EngineCapabilities c;
  switch (kind) {
    case EngineKind::Vllm:
    case EngineKind::Sglang:
      c.ignore_eos = c.min_tokens = c.continuous_usage = c.token_id_prompts = c.forces_output_length = true;
      break;
    case EngineKind::LlamaCpp:
      c.ignore_eos = c.timings_per_token = c.token_id_prompts = c.forces_output_length = true;
      break;
    case EngineKind::TensorRtLlm:
    case EngineKind::LmDeploy:
      c.ignore_eos = c.min_tokens = c.forces_output_length = true;  // unverified in engines.md
      break;
    case EngineKind::Tgi:     // validation hard-codes ignore_eos_token false
    case EngineKind::Ollama:  // no ignore_eos, no minimum tokens
    case EngineKind::OpenAi:  // unknown server: send only standard fields
      break;
  }
  return c;
}

}  // namespace sm
