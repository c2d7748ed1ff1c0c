#pragma once
// The calculator's performance model behind the simulated engine's StepCostModel interface: the
// adapter is the only part of src/sim that knows src/calc.
#include <string>

#include "calc/perf_model.h"
#include "calc/setup.h"
#include "sim/step_cost_model.h"

namespace sm::sim {

/// Step and request times of calc::PerfModel for one GPU × model × quantisation × engine.
/// Thread-safe (immutable after construction).
class CalcCostModel final : public StepCostModel {
 public:
  explicit CalcCostModel(const calc::Setup& setup);
  double step_time_s(const StepBatch& batch) const override;
  double request_cpu_time_s(int64_t prompt_tokens) const override;
  std::string describe() const override { return description_; }
  /// The wrapped model (KV capacity, memory breakdown).
  const calc::PerfModel& model() const { return model_; }

 private:
  calc::PerfModel model_;
  std::string description_;  ///< "calc: <gpu> × <model> <quant> on <engine>"
};

}  // namespace sm::sim
