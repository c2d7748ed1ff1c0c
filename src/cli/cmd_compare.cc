// Placeholder until the subcommand is built: it exists so --help lists it.
#include <cstdio>

#include "cli/commands.h"

namespace sm::cli {

void add_compare_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("compare", "Compare two or more results cell by cell");
  cmd->allow_extras();
  cmd->callback([&action]() {
    action = []() {
      std::fprintf(stderr, "speedmatrix compare: not implemented yet\n");
      return kExitFailure;
    };
  });
}

}  // namespace sm::cli
