#include "cli/app.h"

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/build_info.h"
#include "net/stream_client.h"

namespace sm::cli {

CLI::Option* add_busy_poll_option(CLI::App* cmd, double& busy_poll_us) {
  busy_poll_us = static_cast<double>(kDefaultBusyPollNs) / 1e3;
  return cmd
      ->add_option("--busy-poll-us", busy_poll_us,
                   "While chunks arrive closer together than this, the client polls for up to this long after "
                   "each read instead of sleeping (a wake-up adds tens of µs to a stamp); sparse streams never "
                   "poll. 0: always sleep")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
}

int main(int argc, char** argv) {
  CLI::App app{"speedmatrix: measures how fast an LLM inference server really is.\n"
               "Prefill speed by context length, and sustained decode throughput for every\n"
               "context length x number of simultaneous requests."};
  app.set_version_flag("--version", fmt::format("speedmatrix {} ({}, {})", build::kVersion,
                                                build::kGitCommit, build::kBuildType));
  app.require_subcommand(1);
  Action action;
  add_run_command(app, action);
  add_probe_command(app, action);
  add_report_command(app, action);
  add_compare_command(app, action);
  add_calc_command(app, action);
  add_sim_command(app, action);
  add_synth_model_command(app, action);
  add_serve_command(app, action);
  add_upload_command(app, action);
  add_selftest_command(app, action);
  add_hardware_command(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (!action) return kExitUsage;
  return action();
}

}  // namespace sm::cli
