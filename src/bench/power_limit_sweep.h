#pragma once
// run --power-limits 250,300,350 --power-limit-command CMD: the same matrix at each GPU power limit
// (issue 34 point 5; docs/METRICS.md, "Power-limit sweeps"). Setting a limit needs privileges, so
// the user supplies the command ("sudo nvidia-smi -pl {watts}"); speedmatrix runs it before each
// limit's matrix, and at the end sets back the limit it found. Each limit's run is a run of its
// own in DIR/power-<W>W (result.json, reports, resumable); DIR/power-limits.md and .html put them
// side by side: tokens per joule against output tok/s.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/run_config.h"
#include "core/error.h"

namespace sm {

/// What the sweep calls outside itself; tests replace them.
struct PowerLimitHooks {
  /// Runs a shell command line; returns its exit status (0: done).
  std::function<int(const std::string& command)> run_command;
  /// Runs one limit's matrix (bench/runner.h run_matrix); `run_folder` receives its folder.
  std::function<int(const RunConfig& config, std::string* run_folder)> run_matrix;
  /// The limit in force now, to set back at the end; std::nullopt when it cannot be read (a server on
  /// another machine: the user's command reaches it, speedmatrix cannot).
  std::function<std::optional<double>()> current_limit_w;
};

/// The real hooks: /bin/sh -c, run_matrix, and the local GPUs' enforced limit (nvidia-smi or
/// amdgpu's power cap) when the server runs on this machine.
PowerLimitHooks system_power_limit_hooks(const RunConfig& config);

/// `command_template` with every "{watts}" replaced by the limit ("250", "262.5").
std::string power_limit_command(std::string_view command_template, double watts);

/// Checks the sweep's flags: limits positive and distinct, a command holding "{watts}". Empty
/// limits: no sweep, nothing to check.
Result<void> check_power_limit_flags(const RunConfig& config);

/// The folder of one limit's run under the sweep's folder: "DIR/power-250W".
std::string power_limit_folder(const std::string& sweep_dir, double watts);

/// One limit's run as the sweep left it.
struct PowerLimitRunFolder {
  std::string folder;  ///< its run folder
  int exit_code = 0;   ///< run_matrix's status for it
};

/// Runs the sweep; `config.out_dir` is its folder (empty: runs/<time>-power-limits). Returns the
/// worst exit status of the limits' runs (130 when interrupted, which stops the sweep; 1 when a
/// limit could not be set, which stops it too). The limit found at the start is set back at the
/// end however the sweep ends. `runs` receives each limit's run folder and status.
int run_power_limit_sweep(const RunConfig& config, const PowerLimitHooks& hooks,
                          std::vector<PowerLimitRunFolder>* runs = nullptr);

}  // namespace sm
