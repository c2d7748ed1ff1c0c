#pragma once
// A prefill row of the matrix (docs/METRICS.md, "Prefill"): after the idle barrier, one cold
// request of the row's prompt with max_tokens 1, timed send → first token; before the run's first
// row, one unmeasured request warms the engine itself.
#include "bench/phase_context.h"
#include "result/result.h"
#include "workload/prompt_builder.h"

namespace sm {

/// Measures `row` with `prompt` (cold: a head of its own). `warm_engine_first`: the engine has not
/// yet run a long prompt, so one warm-up request goes first. Sets the row's status.
void measure_prefill_row(PhaseContext& ctx, PrefillRow& row, const BuiltPrompt& prompt, bool warm_engine_first);

}  // namespace sm
