#pragma once
// run --power-limits W,W,... --power-limit-command CMD [--power-limit-restore W]: the same matrix
// at each GPU power limit (bench/power_limit_sweep.h).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "bench/run_config.h"
#include "core/error.h"

namespace sm::cli {

struct PowerLimitFlags {
  std::vector<double> limits_w;          ///< --power-limits
  std::string command;                   ///< --power-limit-command
  std::optional<double> restore_w;       ///< --power-limit-restore
};

void add_power_limit_flags(CLI::App* cmd, PowerLimitFlags& flags);

/// The flags into `config`, checked (bench/power_limit_sweep.h, check_power_limit_flags); an error
/// naming the flag when they do not make sense.
Result<void> apply_power_limit_flags(const PowerLimitFlags& flags, RunConfig& config);

}  // namespace sm::cli
