#include "cli/power_limit_flags.h"

#include <fmt/format.h>

#include "bench/power_limit_sweep.h"

namespace sm::cli {

void add_power_limit_flags(CLI::App* cmd, PowerLimitFlags& f) {
  cmd->add_option("--power-limits", f.limits_w,
                  "Measure the same matrix at each of these GPU power limits in watts (e.g. 250,300,350), each a run "
                  "of its own in DIR/power-<W>W; DIR/power-limits.md and .html set tokens per joule against output "
                  "tok/s. Needs --power-limit-command")
      ->delimiter(',');
  cmd->add_option("--power-limit-command", f.command,
                  "The command that sets a power limit, with {watts} where the limit goes, run by /bin/sh before "
                  "each limit's matrix (it needs privileges speedmatrix does not ask for), e.g. "
                  "\"sudo nvidia-smi -pl {watts}\" or \"ssh gpu-box sudo nvidia-smi -pl {watts}\"");
  cmd->add_option("--power-limit-restore", f.restore_w,
                  "The limit to set when the sweep ends (however it ends); default: the limit the local GPUs had "
                  "before it (not read for a server on another machine)");
}

Result<void> apply_power_limit_flags(const PowerLimitFlags& f, RunConfig& config) {
  config.power_limits_w = f.limits_w;
  config.power_limit_command = f.command;
  if (f.restore_w) {
    if (f.limits_w.empty())
      return fail(ErrorCode::InvalidArgument, "--power-limit-restore goes with --power-limits (the sweep it ends)");
    if (!(*f.restore_w > 0))
      return fail(ErrorCode::InvalidArgument, fmt::format("--power-limit-restore: {:g} W is not a power limit", *f.restore_w));
    config.power_limit_restore_w = f.restore_w;
  }
  return check_power_limit_flags(config);
}

}  // namespace sm::cli
