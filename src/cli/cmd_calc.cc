// Placeholder until the subcommand is built: it exists so --help lists it.
#include <cstdio>

#include "cli/commands.h"

namespace sm::cli {

void add_calc_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("calc", "Predict the matrix for a GPU x model x quantisation (decode calculator)");
  cmd->allow_extras();
  cmd->callback([&action]() {
    action = []() {
      std::fprintf(stderr, "speedmatrix calc: not implemented yet\n");
      return kExitFailure;
    };
  });
}

}  // namespace sm::cli
