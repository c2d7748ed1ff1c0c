#pragma once
// Where the scheduler delivers a request's tokens: the HTTP session streaming it, or a test.
#include <cstdint>

namespace sm::sim {

/// Why a request left the engine.
enum class FinishKind : uint8_t {
  None,    ///< still generating
  Length,  ///< reached max_tokens ("length")
  Stop,    ///< sampled EOS ("stop")
};

/// What one engine step produced for one request.
struct TokenUpdate {
  int64_t generated = 0;             ///< output tokens so far, this step's included (completion_tokens)
  int32_t new_tokens = 0;            ///< output tokens produced by this step (1, or 1 + accepted drafts)
  FinishKind finish = FinishKind::None;  ///< set on the request's last update
  bool eos = false;                  ///< the last new token is EOS (it has no text)
  int64_t cached_prompt_tokens = 0;  ///< prompt tokens found in the prefix cache at admission
};

/// Receives a request's output. Called on the scheduler's thread at the end of each step that
/// produced tokens for the request; the update with finish != None is the last call. The sink
/// must not call back into the scheduler from on_tokens.
class RequestSink {
 public:
  virtual ~RequestSink() = default;
  virtual void on_tokens(const TokenUpdate& update) = 0;
};

}  // namespace sm::sim
