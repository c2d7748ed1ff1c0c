#pragma once
// --resume DIR: the settings of an interrupted run, read back from its result.json, and the
// check that flags given alongside do not change them.
#include <string>

#include "bench/run_config.h"
#include "core/error.h"
#include "result/result.h"

namespace sm {

/// How `stored`'s server was reached: its settings.target, or for older files "launched" (a
/// launch command), "embedded" (simulated hardware: only the built-in engine records it) or "url".
std::string resume_target(const RunResult& stored);

/// The matrix, limits and target of `stored`, as a RunConfig that continues it in `dir`.
RunConfig config_to_resume(const RunResult& stored, const std::string& dir);

/// Fails, naming the first difference, when `requested` (what flags given with --resume say)
/// measures something other than `stored`. Only fields the user set explicitly are compared:
/// `given` lists their flag names ("--duration", "--contexts", ...).
Result<void> check_resume_settings(const RunResult& stored, const RunConfig& requested,
                                   const std::vector<std::string>& given);

/// Cells and rows a resumed run measures again: pending and interrupted.
bool needs_measuring(CellStatus status);

/// What a resumed run still owes: rows and cells to measure (pending, interrupted; with
/// --retry-failed also those in error), valid ones short of --repeat's passes, and the errors
/// left alone (without --retry-failed).
struct ResumeWork {
  int64_t to_measure = 0;      ///< rows and cells measured from scratch
  int64_t short_of_passes = 0; ///< valid rows and cells that still owe passes (--repeat)
  int64_t errors_left = 0;     ///< error rows and cells not retried (no --retry-failed)
  int64_t valid = 0;           ///< valid rows and cells
  int64_t checks_owed = 0;     ///< retrieval checks and SLO searches still owed (an interrupted check or search)
  bool nothing_to_do() const { return to_measure == 0 && short_of_passes == 0 && checks_owed == 0; }
};
/// `retrieval_check`: what the resume asks for (--retrieval-check / --no-retrieval-check); unset keeps the
/// stored run's setting.
ResumeWork resume_work(const RunResult& stored, bool retry_failed, std::optional<bool> retrieval_check = std::nullopt);

/// Passes a row or cell still owes a run of `passes` (--repeat): all of them while pending, the
/// rest of them when valid with `done`, none when in error, over capacity or beyond the model.
int64_t passes_owed(CellStatus status, int64_t done, int64_t passes);

/// Passes a row or cell has measured (with --repeat: its repeat_* figures; else 1 when valid).
int64_t passes_done(const PrefillRow& row);
int64_t passes_done(const DecodeCell& cell);

/// What `run --resume` says of a run with nothing left to measure.
std::string finished_run_message(const std::string& dir, const ResumeWork& work);

}  // namespace sm
