#pragma once
// A mixed-prefill row's timeline (docs/METRICS.md, "Mixed prefill"): the background streams'
// total output tok/s second by second through the window, with the long prompt's send and first
// token marked.
#include "report/svg_chart.h"
#include "result/result.h"

namespace sm::report {

/// The row's chart; no series when it has no timeline.
LineChart mixed_prefill_chart(const MixedPrefillRow& row);

}  // namespace sm::report
