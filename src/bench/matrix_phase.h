#pragma once
// The matrix phase: the prefill rows and decode cells, in ascending context, once per pass
// (--repeat N: each pass measures what owes it, folded into its record by RepeatPasses). Per
// context: the prompt built once (a prefill row's cold, with a head of its own; a decode-only
// context's extending the previous context's), the prefill row (bench/prefill_row.h), then the
// decode cells (bench/decode_cell.h), each saved as it ends.
#include "bench/phase.h"
#include "bench/repeat_passes.h"

namespace sm {

class MatrixPhase : public Phase {
 public:
  std::string_view name() const override { return "matrix"; }
  PhaseUnits units_owed(const PhaseContext& ctx) const override;
  bool run(PhaseContext& ctx) override;

 private:
  /// One pass: the rows and cells that owe it. True when interrupted.
  bool measure_pass(PhaseContext& ctx, int64_t pass, RepeatPasses& repeats);

  bool engine_warm_ = false;  ///< the engine has run a long prompt (prefill_row's warm-up)
};

}  // namespace sm
