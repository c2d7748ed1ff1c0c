#pragma once
// `run --mixed-prefill CONTEXTS` as a phase of a run (docs/METRICS.md, "Mixed prefill"), after the
// SLO search: for each length L, a prompt of L tokens alone on the idle server (its TTFT alone),
// then N streams decoding a short shared prompt and, --mixed-prefill-around seconds into their
// window, another prompt of L tokens landing among them (bench/closed_loop.h's intruder); the
// window runs on as long after its first token. The row: TTFT alone and under load, the streams'
// total tok/s before, during and after the prefill, the longest pause a stream saw, and a
// timeline (metrics/mixed_prefill.h). Each row is saved as it ends; an interrupted one is owed.
#include <cstdint>
#include <optional>
#include <vector>

#include "bench/phase.h"
#include "bench/run_config.h"
#include "result/result.h"

namespace sm {

/// Streams decoding while the long prompt lands when --mixed-prefill-streams is not given: 4, or
/// one less than the server's slots where it has fewer (so the long prompt never waits for one).
int64_t default_mixed_prefill_streams(std::optional<int64_t> server_slots);

/// Records the run's --mixed-prefill settings (streams resolved against the server's slots).
void apply_mixed_prefill_settings(RunSettings& s, const MixedPrefillSpec& spec, std::optional<int64_t> server_slots);

/// The lengths still owed a row, ascending.
std::vector<int64_t> mixed_prefill_contexts_owed(const RunResult& result);

/// A row's status before it runs: the long prompt beyond the model, or it and the streams beyond
/// the KV cache (each stream's short prompt and max output) — else Valid.
CellStatus mixed_prefill_status(int64_t context, int64_t streams, int64_t max_output_tokens,
                                const CapacityLimits& limits);

class MixedPrefillPhase : public Phase {
 public:
  std::string_view name() const override { return "mixed prefill"; }
  PhaseUnits units_owed(const PhaseContext& ctx) const override;
  bool run(PhaseContext& ctx) override;
};

}  // namespace sm
