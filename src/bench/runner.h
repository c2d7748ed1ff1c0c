#pragma once
// run(config): probe the target, plan, measure every row and cell, journal the result.
#include <string>

#include "bench/run_config.h"

namespace sm {

/// Runs the whole matrix; returns the process exit code (0 ok, 1 failed, 130 interrupted).
/// `run_folder`, when given, receives the folder the run wrote ("" when it wrote none).
int run_matrix(const RunConfig& config, std::string* run_folder = nullptr);

}  // namespace sm
