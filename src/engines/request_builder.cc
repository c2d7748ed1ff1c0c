#include "engines/request_builder.h"

#include <nlohmann/json.hpp>

namespace sm {

std::string_view completion_path(ApiKind api) {
  return api == ApiKind::Chat ? "/v1/chat/completions" : "/v1/completions";
}

std::string build_completion_body(EngineKind kind, ApiKind api, const CompletionSpec& spec) {
  const EngineCapabilities caps = capabilities_of(kind);
  nlohmann::json body;
  body["model"] = spec.model;
  if (api == ApiKind::Chat) {
    if (spec.messages.empty()) {
      body["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", spec.prompt}}});
    } else {
      body["messages"] = nlohmann::json::array();
      for (const ChatMessage& m : spec.messages) body["messages"].push_back({{"role", m.role}, {"content", m.content}});
    }
  } else {
    body["prompt"] = spec.prompt;
  }
  body["max_tokens"] = spec.max_tokens;
  body["temperature"] = spec.temperature;
  body["top_p"] = 1.0;
  body["stream"] = spec.stream;
  if (spec.stream) {
    nlohmann::json stream_options = {{"include_usage", true}};
    if (caps.continuous_usage) stream_options["continuous_usage_stats"] = true;
    body["stream_options"] = stream_options;
  }
  if (spec.force_length) {
    if (caps.ignore_eos) body["ignore_eos"] = true;
    if (caps.min_tokens) body["min_tokens"] = spec.max_tokens;
  }
  if (caps.timings_per_token && spec.stream) body["timings_per_token"] = true;
  if (kind == EngineKind::LlamaCpp) {
    body["n_predict"] = spec.max_tokens;  // llama.cpp's own name for the output limit
    body["cache_prompt"] = true;          // default, stated: warm decode prompts rely on it
  }
  return body.dump();
}

}  // namespace sm
