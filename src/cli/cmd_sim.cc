// Placeholder until the subcommand is built: it exists so --help lists it.
#include <cstdio>

#include "cli/commands.h"

namespace sm::cli {

void add_sim_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("sim", "Serve the calculator's prediction as an OpenAI-compatible HTTP server");
  cmd->allow_extras();
  cmd->callback([&action]() {
    action = []() {
      std::fprintf(stderr, "speedmatrix sim: not implemented yet\n");
      return kExitFailure;
    };
  });
}

}  // namespace sm::cli
