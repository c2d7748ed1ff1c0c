#pragma once
// A burst cell (--requests N; docs/METRICS.md, "Burst cells"): the warm-up requests, then N
// measured requests through `concurrency` slots, timed from the first send to the last end.
#include <string_view>

#include "bench/phase_context.h"
#include "result/result.h"
#include "workload/prompt_builder.h"

namespace sm {

/// Measures `cell` as a burst. Called by measure_decode_cell with the progress line begun and the
/// prompt warm; ends the progress line and sets the cell's status. `purpose`: its requests' tag in
/// requests.jsonl ("burst", "slo probe").
void measure_burst_cell(PhaseContext& ctx, DecodeCell& cell, const BuiltPrompt& prompt, std::string_view purpose);

}  // namespace sm
