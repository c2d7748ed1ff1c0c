#pragma once
// One function per subcommand: it adds the subcommand and its flags to the app and sets
// `action` to what runs when that subcommand was chosen.
#include <CLI/CLI.hpp>

#include <functional>

namespace sm::cli {

using Action = std::function<int()>;

void add_run_command(CLI::App& app, Action& action);

/// Exit codes shared by all subcommands.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;      ///< the job failed (server unreachable, I/O error, ...)
constexpr int kExitUsage = 2;        ///< bad flags or arguments
constexpr int kExitInterrupted = 130;  ///< stopped by Ctrl-C; what finished is saved

}  // namespace sm::cli
