#pragma once
// The SLO search, a stage of a run (`run --slo`; docs/METRICS.md, "SLO search"): after the
// matrix's passes (and the retrieval check), per context, the highest concurrency whose
// closed-loop requests meet the SLO at its percentile. The matrix's own cells at that context
// bracket it (the highest passing below the lowest failing); integer concurrencies between are
// bisected with probes, each a decode cell measured as the matrix measures one (idle barrier,
// warm prompt, window) but kept out of the matrix. A context's result is recorded once its
// search ends, so a resumed run searches only the contexts left.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "result/result.h"

namespace sm {

/// Probes a context's search may measure unless --slo says probes=N: enough to bisect a gap of 64.
inline constexpr int64_t kDefaultSloMaxProbes = 6;

/// What `--slo` says.
struct SloSpec {
  SloTargets targets;
  std::vector<int64_t> contexts;  ///< empty: every context with decode cells
  int64_t max_probes = kDefaultSloMaxProbes;
};

/// Parses `ttft=2s,tpot=50ms[,context=32K][,context=...][,p=95][,probes=N]`: times in ms or s (a
/// bare number is ms), contexts as --contexts writes them, p the SLO percentile (0, 100]. At
/// least one of ttft and tpot. Errors say what is wrong.
Result<SloSpec> parse_slo_spec(std::string_view text);

/// Sets settings.slo, slo_contexts and slo_max_probes from `spec`.
void apply_slo_spec(RunSettings& settings, const SloSpec& spec);

/// True when `settings` asks for the search `spec` asks for.
bool same_slo(const RunSettings& settings, const SloSpec& spec);

/// "TTFT ≤ 2000 ms, TPOT ≤ 50 ms at p90" (for progress lines and the reports).
std::string describe_slo(const SloTargets& targets);

/// A concurrency whose verdict is already known (a matrix cell).
struct SloKnown {
  int64_t concurrency = 0;
  bool meets = false;
};

/// Where a search ended (SloSearch's fields of the same names).
struct SloBisection {
  std::string basis;
  int64_t concurrency = 0;
  std::optional<int64_t> failing_concurrency;
  std::optional<int64_t> passed_above;
  int64_t probes = 0;
};

/// Measures `concurrency` and says whether it meets the SLO; nullopt: the probe failed or the
/// run was interrupted (the search stops there).
using SloProbeFn = std::function<std::optional<bool>(int64_t concurrency)>;

/// The search itself, without a server. The bracket: the lowest known failing concurrency (hi)
/// and the highest known passing below it (lo; 0 when none). Known passes above hi are noise:
/// the highest is passed_above. Without a known failure, max_concurrency is probed first (a pass
/// there: at_least). Then integer bisection of (lo, hi) while probes last.
SloBisection bisect_slo_concurrency(std::vector<SloKnown> known, int64_t max_concurrency, int64_t max_probes,
                                    const SloProbeFn& probe);

/// The highest concurrency a search at `context` may try: the highest planned at that context
/// that the KV cache and the model's length allow (between the last fitting and the first over
/// capacity, the largest that fits); 0 when none does.
int64_t slo_max_concurrency(const RunResult& result, int64_t context);

/// The contexts still owing a search, ascending: settings.slo_contexts (or every decode context)
/// with a concurrency that fits and no entry in result.slo_search.
std::vector<int64_t> slo_contexts_owed(const RunResult& result);

/// What the stage needs from the run.
struct SloSearchHooks {
  /// Measures one probe at (context, concurrency) after the idle barrier: a point with source
  /// "probe", its judgement when valid.
  std::function<SloPoint(int64_t context, int64_t concurrency)> probe;
  /// Called after each context's search is recorded (save the result, print a line). May be empty.
  std::function<void(const SloSearch&)> on_searched;
  /// True when the run was interrupted. May be empty.
  std::function<bool()> interrupted;
};

/// Runs every owed search in ascending context and keeps result.slo_search in ascending context.
/// A search cut by an interruption is not recorded (a resume does it again). Returns false when
/// interrupted.
bool run_slo_searches(RunResult& result, const SloSearchHooks& hooks);

/// One line for the progress output: "SLO 32K: 6 requests at once (probes 3)".
std::string slo_search_summary(const SloSearch& search);

}  // namespace sm
