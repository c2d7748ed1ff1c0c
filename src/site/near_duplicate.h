#pragma once
// Near duplicates (docs/site.md, "Upload checks"): a run that measured what a stored run measured,
// whatever its id and timestamps say, is refused with 409 naming the earlier run. The exact
// duplicate (the same measurements, byte for byte: measurements_sha256) is answered 200 instead,
// as a retry under another id; this catches the copies that move a timestamp or nudge a figure.
#include <optional>
#include <string>

#include "core/error.h"
#include "result/result.h"
#include "store/result_store.h"

namespace sm::site {

/// Two figures are "the same" within this share of the larger: 0.05%. Genuine repeats of a run
/// spread wider: the embedded engine's run-to-run CV is 0.1–1.0% per cell and llama-server's
/// 10–21% (docs/performance.md, "Between-run noise"); a real GPU server's is about 1%.
constexpr double kNearDuplicateTolerance = 0.0005;
/// Stored runs of the same setup compared with an upload, newest first.
constexpr int64_t kNearDuplicateCandidates = 20;

/// True when `a` and `b` are the same measurement: the same kind, GPU, model, engine and version,
/// quantisation; the same decode cells (context × concurrency, status) and prefill rows (context,
/// status); and every valid cell's total tok/s and every valid row's prompt tok/s within
/// kNearDuplicateTolerance. At least one figure must be compared (runs with nothing valid are
/// not duplicates of each other by this rule).
bool is_near_duplicate(const RunResult& a, const RunResult& b);

/// The id of a stored, visible run that `run` nearly duplicates (another id, same setup: the
/// newest kNearDuplicateCandidates of its GPU, model, engine, quantisation and kind); none when
/// there is none.
Result<std::optional<std::string>> find_near_duplicate(store::ResultStore& store, const RunResult& run,
                                                       const store::RunSummary& summary);

}  // namespace sm::site
