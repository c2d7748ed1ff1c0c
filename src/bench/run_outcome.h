#pragma once
// How a finished run ends for a script: its exit status, and the line that says why when it is
// not 0 (run_config.h lists the codes; README and `run --help` document them).
#include <string>

#include "result/result.h"

namespace sm {

/// kExitOk when every row and cell is valid, over capacity or beyond the model (and at least one
/// was measured); kExitNothingMeasured when not one row or cell is valid; else kExitCellErrors
/// when any row or cell is in error (pending or interrupted ones count as errors here: a run that
/// finished without measuring them did not measure its plan).
int exit_code_for(const RunResult& result);

/// Why the status is not 0, in one line ("2 of 9 cells ended in error: ..."); empty for kExitOk.
std::string outcome_line(const RunResult& result);

}  // namespace sm
