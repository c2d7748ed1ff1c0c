// Placeholder until the subcommand is built: it exists so --help lists it.
#include <cstdio>

#include "cli/commands.h"

namespace sm::cli {

void add_synth_model_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("synth-model", "Write a GGUF model with random weights of a chosen shape");
  cmd->allow_extras();
  cmd->callback([&action]() {
    action = []() {
      std::fprintf(stderr, "speedmatrix synth-model: not implemented yet\n");
      return kExitFailure;
    };
  });
}

}  // namespace sm::cli
