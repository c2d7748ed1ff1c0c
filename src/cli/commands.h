#pragma once
// One function per subcommand: it adds the subcommand and its flags to the app and sets
// `action` to what runs when that subcommand was chosen.
#include <CLI/CLI.hpp>

#include <functional>

namespace sm::cli {

using Action = std::function<int()>;

void add_run_command(CLI::App& app, Action& action);          // cmd_run.cc
void add_probe_command(CLI::App& app, Action& action);        // cmd_probe.cc
void add_report_command(CLI::App& app, Action& action);       // cmd_report.cc
void add_compare_command(CLI::App& app, Action& action);      // cmd_compare.cc
void add_calc_command(CLI::App& app, Action& action);         // cmd_calc.cc
void add_sim_command(CLI::App& app, Action& action);          // cmd_sim.cc
void add_synth_model_command(CLI::App& app, Action& action);  // cmd_synth_model.cc
void add_serve_command(CLI::App& app, Action& action);        // cmd_serve.cc
void add_upload_command(CLI::App& app, Action& action);       // cmd_upload.cc
void add_selftest_command(CLI::App& app, Action& action);     // cmd_selftest.cc
void add_hardware_command(CLI::App& app, Action& action);     // cmd_hardware.cc
void add_sweep_command(CLI::App& app, Action& action);        // cmd_sweep.cc

/// --busy-poll-us, the client loop's busy-poll window in µs (run and selftest share it).
CLI::Option* add_busy_poll_option(CLI::App* cmd, double& busy_poll_us);  // app.cc

/// Exit codes shared by all subcommands.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;      ///< the job failed (server unreachable, I/O error, ...)
constexpr int kExitUsage = 2;        ///< bad flags or arguments
constexpr int kExitInterrupted = 130;  ///< stopped by Ctrl-C; what finished is saved

}  // namespace sm::cli
