#pragma once
// Which OpenAI-compatible route a request uses: what the request builder writes and the run's
// --api chooses.
#include <cstdint>

namespace sm {

/// Which OpenAI-compatible route the streams use.
enum class ApiKind : uint8_t {
  Completions,  ///< POST /v1/completions (default: the prompt is sent as-is)
  Chat,         ///< POST /v1/chat/completions (the server applies its chat template)
};

}  // namespace sm
