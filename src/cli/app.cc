#include "cli/app.h"

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/suggest.h"
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

namespace {

std::vector<CLI::App*> visible_commands(CLI::App& app) {
  // Hidden helpers (the self-test's streamer) have no description.
  return app.get_subcommands([](CLI::App* s) { return !s->get_description().empty(); });
}

CLI::App* find_command(CLI::App& app, std::string_view name) {
  auto found = app.get_subcommands([&](CLI::App* s) { return s->get_name() == name; });
  return found.empty() ? nullptr : found.front();
}

// `speedmatrix frobnicate`: say so, suggest the closest command, list them all.
int unknown_command(CLI::App& app, std::string_view given) {
  std::vector<std::string> names;
  for (CLI::App* s : visible_commands(app)) names.push_back(s->get_name());
  std::string message = fmt::format("speedmatrix: unknown command '{}'", given);
  if (auto near = closest_name(given, names)) message += fmt::format(" (did you mean '{}'?)", *near);
  message += "\nCommands:";
  for (CLI::App* s : visible_commands(app)) message += fmt::format("\n  {:<12} {}", s->get_name(), s->get_description());
  message += "\n`speedmatrix COMMAND --help` explains each.\n";
  std::fputs(message.c_str(), stderr);
  return kExitUsage;
}

// After "arguments were not expected": name each unknown --flag of the command line's commands
// and suggest the closest one that exists. False when no --flag was unknown (other extras).
bool explain_unknown_flags(CLI::App& app, int argc, char** argv) {
  CLI::App* command = &app;
  std::string chain = "speedmatrix";
  bool any = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view token = argv[i];
    if (token == "--") break;
    if (token.starts_with("--")) {
      const std::string name(token.substr(0, token.find('=')));
      if (command->get_option_no_throw(name) != nullptr) continue;
      std::vector<std::string> known;
      for (const CLI::Option* o : command->get_options())
        for (const std::string& l : o->get_lnames()) known.push_back("--" + l);
      std::string line = fmt::format("{}: unknown option {}", chain, name);
      if (auto near = closest_name(name, known)) line += fmt::format(" (did you mean {}?)", *near);
      std::fprintf(stderr, "%s\n", line.c_str());
      any = true;
    } else if (!token.starts_with("-")) {
      if (CLI::App* sub = find_command(*command, token)) {
        command = sub;
        chain += " " + std::string(token);
      }
    }
  }
  if (any) std::fprintf(stderr, "`%s --help` lists every option.\n", chain.c_str());
  return any;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"speedmatrix: measures how fast an LLM inference server really is.\n"
               "Prefill speed by context length, and sustained decode throughput for every\n"
               "context length x number of simultaneous requests."};
  app.set_version_flag("--version", fmt::format("speedmatrix {} ({}, {})", build::kVersion,
                                                build::kGitCommit, build::kBuildType));
  app.require_subcommand(1);
  Action action;
  add_run_command(app, action);
  add_sweep_command(app, action);
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
  if (argc < 2) {
    std::fputs(app.help().c_str(), stderr);
    return kExitUsage;
  }
  if (const std::string_view first = argv[1]; !first.starts_with("-") && find_command(app, first) == nullptr)
    return unknown_command(app, first);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    if (explain_unknown_flags(app, argc, argv)) return kExitUsage;
    app.exit(e);
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (!action) return kExitUsage;
  return action();
}

}  // namespace sm::cli
