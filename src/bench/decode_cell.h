#pragma once
// A decode cell of the matrix, or an SLO probe measured like one (docs/METRICS.md, "Decode"):
// the idle barrier, a warm-up request unless the prompt is already warm, then N streams in a
// window — fixed, adaptive (--precision) or, with --requests N, a burst (bench/burst_cell.h) —
// the cell's figures, SLO judgement, telemetry and status.
#include <optional>
#include <string>
#include <vector>

#include "bench/phase_context.h"
#include "metrics/request_record.h"
#include "result/result.h"
#include "workload/prompt_builder.h"

namespace sm {

/// Measures `cell` (context, concurrency set; status Pending) with `prompt`; `needs_warmup`: the
/// prompt is not known to be in the server's prefix cache. Sets the cell's status.
void measure_decode_cell(PhaseContext& ctx, DecodeCell& cell, const BuiltPrompt& prompt, bool needs_warmup);

/// "2 of 37 requests failed; first: ..." when any request of a cell failed.
std::optional<std::string> failed_requests_reason(const std::vector<RequestRecord>& records);

}  // namespace sm
