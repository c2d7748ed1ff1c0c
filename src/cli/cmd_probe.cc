// Placeholder until the subcommand is built: it exists so --help lists it.
#include <cstdio>

#include "cli/commands.h"

namespace sm::cli {

void add_probe_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("probe", "Detect engine, version, model, context and KV capacity of a server, and this machine's hardware");
  cmd->allow_extras();
  cmd->callback([&action]() {
    action = []() {
      std::fprintf(stderr, "speedmatrix probe: not implemented yet\n");
      return kExitFailure;
    };
  });
}

}  // namespace sm::cli
