#pragma once
// `run --sessions SxT` / `run --trace FILE` as a phase of a run (docs/METRICS.md, "Sessions"),
// after the mixed-prefill rows: conversations that grow turn by turn. Every turn's prompt is its
// session's whole conversation so far — its opening text (a shared prefix for a trace), then each
// turn's text and the model's own answer, as a chat client sends it — so the server's prefix cache
// decides its TTFT. Sessions run side by side through the open loop (bench/open_loop.h): a
// session's next turn goes out when its previous answer ends (or at its trace time, if later).
// Every request goes to requests.jsonl with its session and turn; the result holds a row per turn
// number (metrics/session_metrics.h). All or nothing: an interrupted workload is owed again.
#include <optional>
#include <string>

#include "bench/phase.h"
#include "bench/run_config.h"
#include "core/error.h"
#include "result/result.h"
#include "workload/session_plan.h"

namespace sm {

/// Records the run's --sessions / --trace settings (`seed`: the run's prompt seed).
void apply_sessions_settings(RunSettings& s, const SessionsSpec& spec, uint64_t seed);

/// The plan the settings describe: generated again from them, or the trace (`spec` must give the
/// trace's bytes, the same ones: its hash is checked).
Result<SessionPlan> sessions_plan(const SessionsSettings& settings, const std::optional<SessionsSpec>& spec);

/// The tokens a session's last turn holds: its opening text, every turn's text and answer.
int64_t longest_session_tokens(const SessionPlan& plan);

class SessionsPhase : public Phase {
 public:
  std::string_view name() const override { return "sessions"; }
  PhaseUnits units_owed(const PhaseContext& ctx) const override;
  bool run(PhaseContext& ctx) override;
};

}  // namespace sm
