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

}  // namespace sm
