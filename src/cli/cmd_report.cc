// Placeholder until the subcommand is built: it exists so --help lists it.
#include <cstdio>

#include "cli/commands.h"

namespace sm::cli {

void add_report_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("report", "Render a result file as a terminal table, HTML, Markdown or CSV");
  cmd->allow_extras();
  cmd->callback([&action]() {
    action = []() {
      std::fprintf(stderr, "speedmatrix report: not implemented yet\n");
      return kExitFailure;
    };
  });
}

}  // namespace sm::cli
