#pragma once
// How long one step of a continuous-batching engine takes, and how long the API server works on
// a request before the engine sees it. The simulated engine asks this once per scheduler step and
// once per request; the calculator's performance model sits behind it in production and a fixed
// linear model in tests, so the server never depends on calc internals.
#include <cstdint>
#include <span>
#include <string>

namespace sm::sim {

/// New prompt tokens of one request processed in a step (chunked prefill).
struct PrefillChunk {
  int64_t start_position = 0;  ///< tokens of this request already in the KV cache before the chunk
  int64_t tokens = 0;          ///< prompt tokens computed in this step (> 0)
  bool samples = true;         ///< the chunk ends its prompt: its last token's logits are computed
};

/// The work of one scheduler step.
struct StepBatch {
  std::span<const int64_t> decode_contexts;     ///< per decoding stream: tokens in its KV once this
                                                ///< step's token is written (its context)
  std::span<const PrefillChunk> prefill_chunks; ///< per request prefilling in this step
  int64_t prefill_tokens = 0;                   ///< sum of prefill_chunks[i].tokens
  int64_t shared_prefix_tokens = 0;             ///< leading KV tokens every decoding stream holds in
                                                ///< the same physical blocks (one prompt, prefix
                                                ///< caching); 0 with fewer than two streams
};

/// Thread-safety: const methods may be called from any thread. Implementations must be
/// deterministic and cheap: the server calls step_time_s() on its I/O thread once per step, with
/// up to max_num_seqs decode contexts.
class StepCostModel {
 public:
  virtual ~StepCostModel() = default;
  /// Seconds the step takes. 0 for an empty batch; never negative.
  virtual double step_time_s(const StepBatch& batch) const = 0;
  /// Seconds the API server spends on a request of `prompt_tokens` before the engine schedules
  /// it (HTTP handling, tokenization, hashing). Requests are processed one after another.
  virtual double request_cpu_time_s(int64_t prompt_tokens) const {
    (void)prompt_tokens;
    return 0.0;
  }
  /// One line saying what the model is, for logs and /metrics labels.
  virtual std::string describe() const = 0;
};

}  // namespace sm::sim
