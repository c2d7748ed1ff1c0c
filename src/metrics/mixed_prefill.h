#pragma once
// A mixed-prefill row's figures (`run --mixed-prefill`; docs/METRICS.md, "Mixed prefill") from
// one loop's records: N background streams decoding through a window, and one long prompt (the
// intruder, on its own slot) sent into it. The background's total tok/s before its send, during
// its prefill (send → first token) and after, the longest pause a stream saw over the prefill,
// and a timeline.
#include <cstdint>
#include <span>

#include "metrics/cell_metrics.h"
#include "metrics/request_record.h"
#include "result/result.h"

namespace sm {

/// Output tokens of the background streams (every record but `intruder_slot`'s) whose chunks
/// arrived in [begin_ns, end_ns).
int64_t background_tokens_between(std::span<const RequestRecord> records, int32_t intruder_slot, int64_t begin_ns,
                                  int64_t end_ns);

/// Fills row's loaded TTFT, background rates, longest gap, send and first-token times and
/// timeline (bins of row.timeline_bin_s over the window; the last bin's rate over its own width).
/// Sets status Error (with why) when the long prompt was not sent or got no token, or the window
/// has no time before it; else Valid.
void compute_mixed_prefill_metrics(std::span<const RequestRecord> records, DecodeWindow window, int32_t intruder_slot,
                                   MixedPrefillRow& row);

}  // namespace sm
