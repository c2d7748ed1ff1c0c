#include "bench/slo_phase.h"

#include <fmt/format.h>
#include <optional>
#include <string>

#include "bench/decode_cell.h"
#include "bench/slo_search.h"
#include "core/interrupt.h"
#include "core/units.h"

namespace sm {

PhaseUnits SloPhase::units_owed(const PhaseContext& ctx) const {
  const int64_t probes =
      static_cast<int64_t>(slo_contexts_owed(ctx.result).size()) * ctx.result.settings.slo_max_probes;
  return PhaseUnits{probes, probes};
}

// The SLO search's stage (bench/slo_search.h), after the retrieval check: each probe is a decode
// cell measured as the matrix measures one (idle barrier, warm prompt, window), judged against
// the SLO, and kept out of the matrix. Returns true when interrupted.
bool SloPhase::run(PhaseContext& ctx) {
  if (!ctx.result.settings.slo) return false;
  int64_t prompt_context = -1;  // the context whose probe prompt is built ...
  std::optional<BuiltPrompt> prompt;
  bool warm = false;  // ... and warm in the server's prefix cache
  SloSearchHooks hooks;
  hooks.probe = [&](int64_t context, int64_t concurrency) {
    SloPoint point;
    if (context != prompt_context) {
      prompt_context = context;
      warm = false;
      prompt.reset();
      auto built = ctx.build_prompt(context, ctx.unique_head("slo", context));
      if (!built) {
        point.status = CellStatus::Error;
        point.error = "could not build the prompt: " + built.error().message;
        prompt_context = -1;
        return point;
      }
      prompt = std::move(*built);
    }
    DecodeCell probe;
    probe.context = context;
    probe.concurrency = concurrency;
    probe.status = CellStatus::Pending;
    measure_decode_cell(ctx, probe, *prompt, !warm, "slo probe");
    warm = probe.status == CellStatus::Valid;
    point.status = probe.status;
    point.error = probe.error;
    if (probe.status == CellStatus::Valid) point.judgement = probe.slo;
    ctx.progress.finished(fmt::format("SLO probe {} x {}: {}", format_tokens(context), concurrency,
                                      probe.status != CellStatus::Valid           ? std::string(to_string(probe.status))
                                      : point.judgement && point.judgement->meets ? "meets the SLO"
                                                                                  : "misses the SLO"));
    return point;
  };
  hooks.on_searched = [&ctx](const SloSearch& search) {
    ctx.progress.finished(slo_search_summary(search));
    ctx.save();
  };
  hooks.interrupted = [] { return interrupt_requested(); };
  return !run_slo_searches(ctx.result, hooks);
}

}  // namespace sm
