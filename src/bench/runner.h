#pragma once
// run(config): probe the target, plan, measure every row and cell, journal the result.
#include "bench/run_config.h"

namespace sm {

/// Runs the whole matrix; returns the process exit code (0 ok, 1 failed, 130 interrupted).
int run_matrix(const RunConfig& config);

}  // namespace sm
