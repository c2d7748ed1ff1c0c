#include "sim/linear_cost_model.h"

#include <fmt/format.h>

namespace sm::sim {

double LinearCostModel::step_time_s(const StepBatch& batch) const {
  if (batch.decode_contexts.empty() && batch.prefill_tokens == 0) return 0.0;
  int64_t context_sum = 0;
  for (int64_t c : batch.decode_contexts) context_sum += c;
  double t = params_.fixed_s + params_.per_stream_s * static_cast<double>(batch.decode_contexts.size()) +
             params_.per_context_token_s * static_cast<double>(context_sum) +
             params_.per_prefill_token_s * static_cast<double>(batch.prefill_tokens);
  if (params_.per_prefill_attention_s != 0.0) {
    for (const PrefillChunk& c : batch.prefill_chunks) {
      // Token j of the chunk attends to start + j earlier tokens; the mean is start + (n - 1) / 2.
      double mean_position = static_cast<double>(c.start_position) + (static_cast<double>(c.tokens) - 1) / 2;
      t += params_.per_prefill_attention_s * static_cast<double>(c.tokens) * mean_position;
    }
  }
  return t;
}

double LinearCostModel::request_cpu_time_s(int64_t prompt_tokens) const {
  return params_.per_request_s + params_.per_request_token_s * static_cast<double>(prompt_tokens);
}

std::string LinearCostModel::describe() const {
  return fmt::format("linear model: {:.3f} ms/step + {:.1f} us/stream + {:.2f} ns/context token + {:.1f} us/prefill token",
                     params_.fixed_s * 1e3, params_.per_stream_s * 1e6, params_.per_context_token_s * 1e9,
                     params_.per_prefill_token_s * 1e6);
}

}  // namespace sm::sim
