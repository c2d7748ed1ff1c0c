#pragma once
// A deterministic cost model with a few linear terms: what tests use, and the fallback of
// `speedmatrix sim` when no calculator model is given.
#include "sim/step_cost_model.h"

namespace sm::sim {

/// Coefficients of LinearCostModel; every field is seconds per unit.
struct LinearCostParams {
  double fixed_s = 0.005;                 ///< per step that does any work (launch, scheduling)
  double per_stream_s = 50e-6;            ///< per decode stream in the step
  double per_context_token_s = 2e-9;      ///< per decode stream, per token of its context (KV read)
  double per_prefill_token_s = 100e-6;    ///< per prompt token computed (chunked prefill)
  double per_prefill_attention_s = 0.0;   ///< per prefill token, per token before it (causal attention)
  double per_request_s = 0.0;             ///< API-server time per request
  double per_request_token_s = 0.0;       ///< API-server time per prompt token (tokenizing)
};

/// step = fixed + Σ_streams (per_stream + per_context_token × context)
///        + Σ_chunks tokens × (per_prefill_token + per_prefill_attention × mean position);
/// request = per_request + per_request_token × prompt tokens.
class LinearCostModel final : public StepCostModel {
 public:
  explicit LinearCostModel(const LinearCostParams& params) : params_(params) {}
  double step_time_s(const StepBatch& batch) const override;
  double request_cpu_time_s(int64_t prompt_tokens) const override;
  std::string describe() const override;
  const LinearCostParams& params() const { return params_; }

 private:
  LinearCostParams params_;
};

}  // namespace sm::sim
