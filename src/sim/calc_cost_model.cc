#include "sim/calc_cost_model.h"

#include <fmt/format.h>

#include <vector>

namespace sm::sim {

CalcCostModel::CalcCostModel(const calc::Setup& setup)
    : model_(setup),
      description_(fmt::format("calculator: {}{} x {} {} on {}", setup.gpus > 1 ? fmt::format("{} x ", setup.gpus) : "",
                               setup.gpu.name, setup.model.name, setup.quant.name, setup.engine.name)) {}

double CalcCostModel::step_time_s(const StepBatch& batch) const {
  // calc::PrefillChunk has the same three fields as ours; convert into a reused per-thread buffer
  // (the step path must not allocate).
  thread_local std::vector<calc::PrefillChunk> chunks;
  chunks.clear();
  for (const PrefillChunk& c : batch.prefill_chunks) chunks.push_back(calc::PrefillChunk{c.start_position, c.tokens, c.samples});
  return model_.step_time_s(batch.decode_contexts, chunks, batch.shared_prefix_tokens);
}

double CalcCostModel::request_cpu_time_s(int64_t prompt_tokens) const {
  return model_.request_cpu_time_s(prompt_tokens);
}

}  // namespace sm::sim
