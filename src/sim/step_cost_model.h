#pragma once
// How long one step of a continuous-batching engine takes. The simulated engine asks this once
// per scheduler step; the calculator's performance model sits behind it in production and a
// fixed linear model in tests, so the server never depends on calc internals.
#include <cstdint>
#include <span>
#include <string>

namespace sm::sim {

/// New prompt tokens of one request processed in a step (chunked prefill).
struct PrefillChunk {
  int64_t start_position = 0;  ///< tokens of this request already in the KV cache before the chunk
  int64_t tokens = 0;          ///< prompt tokens computed in this step (> 0)
};

/// All prefill work of one step; chunks of several requests may share a step.
struct PrefillWork {
  std::span<const PrefillChunk> chunks;  ///< one entry per request that prefills in this step
  int64_t total_tokens = 0;              ///< sum of chunks[i].tokens
};

/// Cost of one scheduler step. Implementations must be deterministic and cheap: the server calls
/// step_time_s() on its I/O thread once per step, with up to max_num_seqs decode contexts.
/// Thread-safety: const methods may be called from any thread.
class StepCostModel {
 public:
  virtual ~StepCostModel() = default;
  /// Seconds one step takes that decodes one token for each running stream (decode_contexts[i]
  /// = tokens in that stream's KV cache once this step's token is written, i.e. its context)
  /// and computes `prefill` new prompt tokens in the same batch. Never negative.
  virtual double step_time_s(std::span<const int64_t> decode_contexts, const PrefillWork& prefill) const = 0;
  /// One line saying what the model is, for logs and /metrics labels, e.g. "linear test model".
  virtual std::string describe() const = 0;
};

}  // namespace sm::sim
