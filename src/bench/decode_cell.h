#pragma once
// A decode cell of the matrix, or an SLO probe measured like one (docs/METRICS.md, "Decode"):
// the idle barrier, a warm-up request unless the prompt is already warm, then N streams in a
// window — fixed, adaptive (--precision) or, with --requests N, a burst (bench/burst_cell.h) —
// the cell's figures, SLO judgement, telemetry and status.
#include "bench/closed_loop.h"
#include "bench/phase_context.h"
#include "result/result.h"
#include "workload/prompt_builder.h"

namespace sm {

/// Measures `cell` (context, concurrency set; status Pending) with `prompt`; `needs_warmup`: the
/// prompt is not known to be in the server's prefix cache; `purpose`: what its requests are
/// tagged with in requests.jsonl ("decode", "slo probe"). Sets the cell's status.
void measure_decode_cell(PhaseContext& ctx, DecodeCell& cell, const BuiltPrompt& prompt, bool needs_warmup,
                         std::string_view purpose = "decode");

/// The cell's status from its loop: interrupted; error (the loop's error, no window when
/// `needs_window`, or "2 of 37 requests failed; first: ..." — the numbers stay as diagnostics);
/// else valid.
void set_cell_status(DecodeCell& cell, const LoopOutcome& out, bool needs_window);

}  // namespace sm
