#pragma once
// Where a run's result starts, once the server is probed: a new run's plan (the matrix fitted to
// the server, every row and cell pending, the settings, the run folder with result.json), or an
// interrupted run's result read back for --resume (the model checked, unfinished rows and cells
// reset, --retry-failed's errors too), with a launched server's log moved into the folder.
#include "bench/phase_context.h"
#include "core/error.h"

namespace sm {

/// Fills ctx.result, ctx.matrix and ctx.run_dir and writes result.json: for a new run from the
/// configuration and the probed server (ctx.limits: the server's, or the overrides); with
/// --resume from the interrupted run's result.json (ctx.limits and ctx.earlier_timing too).
Result<void> start_run(PhaseContext& ctx);

}  // namespace sm
