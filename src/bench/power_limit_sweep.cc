#include "bench/power_limit_sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sys/wait.h>

#include "bench/run_folder.h"
#include "bench/runner.h"
#include "core/clock.h"
#include "core/interrupt.h"
#include "report/power_limit_report.h"
#include "result/atomic_file.h"
#include "result/result_json.h"
#include "system/hardware_probe.h"

namespace sm {

namespace {

std::string watts_number(double watts) { return fmt::format("{:g}", watts); }

// The exit status a sweep reports: interrupted first, then failures, then the cells' outcomes.
int worse(int a, int b) {
  auto rank = [](int code) {
    switch (code) {
      case kExitInterrupted: return 5;
      case kExitFailure: return 4;
      case kExitNothingMeasured: return 3;
      case kExitCellErrors: return 2;
      case kExitOk: return 0;
      default: return 1;
    }
  };
  return rank(b) > rank(a) ? b : a;
}

int shell_status(int status) {
  if (status == -1) return 127;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

std::string power_limit_command(std::string_view command_template, double watts) {
  std::string out;
  const std::string value = watts_number(watts);
  constexpr std::string_view kPlaceholder = "{watts}";
  size_t at = 0;
  while (true) {
    const size_t found = command_template.find(kPlaceholder, at);
    out += command_template.substr(at, found - at);
    if (found == std::string_view::npos) break;
    out += value;
    at = found + kPlaceholder.size();
  }
  return out;
}

Result<void> check_power_limit_flags(const RunConfig& config) {
  if (config.power_limits_w.empty()) {
    if (!config.power_limit_command.empty())
      return fail(ErrorCode::InvalidArgument, "--power-limit-command needs --power-limits W,W,... (the limits to sweep)");
    return {};
  }
  if (config.power_limit_command.empty())
    return fail(ErrorCode::InvalidArgument,
                "--power-limits needs --power-limit-command CMD: the command that sets a limit, with {watts} "
                "where the limit goes (e.g. \"sudo nvidia-smi -pl {watts}\"); setting a power limit needs privileges "
                "speedmatrix does not ask for");
  if (config.power_limit_command.find("{watts}") == std::string::npos)
    return fail(ErrorCode::InvalidArgument,
                "--power-limit-command must hold {watts} where the limit goes (e.g. \"sudo nvidia-smi -pl {watts}\")");
  std::set<double> seen;
  for (double w : config.power_limits_w) {
    if (!(w > 0)) return fail(ErrorCode::InvalidArgument, fmt::format("--power-limits: {:g} W is not a power limit", w));
    if (!seen.insert(w).second)
      return fail(ErrorCode::InvalidArgument, fmt::format("--power-limits: {:g} W is listed twice", w));
  }
  if (!config.resume_dir.empty())
    return fail(ErrorCode::InvalidArgument,
                "--power-limits cannot be resumed as a whole: resume one limit's run with --resume DIR/power-<W>W "
                "after setting its limit");
  return {};
}

std::string power_limit_folder(const std::string& sweep_dir, double watts) {
  return (std::filesystem::path(sweep_dir) / fmt::format("power-{}W", watts_number(watts))).string();
}

PowerLimitHooks system_power_limit_hooks(const RunConfig& config) {
  PowerLimitHooks hooks;
  hooks.run_command = [](const std::string& command) {
    std::fflush(nullptr);
    return shell_status(std::system(command.c_str()));
  };
  hooks.run_matrix = [](const RunConfig& c, std::string* folder) { return run_matrix(c, folder); };
  const bool local = !config.target_locality || config.target_locality->local;
  hooks.current_limit_w = [local]() -> std::optional<double> {
    if (!local) return std::nullopt;
    std::optional<double> smallest;
    for (const GpuInfo& g : probe_hardware().gpus)
      if (g.power_limit_w && (!smallest || *g.power_limit_w < *smallest)) smallest = g.power_limit_w;
    return smallest;
  };
  return hooks;
}

int run_power_limit_sweep(const RunConfig& config, const PowerLimitHooks& hooks, std::vector<PowerLimitRunFolder>* runs) {
  const std::string sweep_dir =
      config.out_dir.empty() ? default_run_dir(wall_clock_unix_ms(), "power-limits") : config.out_dir;
  std::error_code ec;
  std::filesystem::create_directories(sweep_dir, ec);
  if (ec) {
    std::fprintf(stderr, "speedmatrix run: cannot create %s: %s\n", sweep_dir.c_str(), ec.message().c_str());
    return kExitFailure;
  }
  const std::optional<double> found_w = config.power_limit_restore_w ? config.power_limit_restore_w
                                                                     : hooks.current_limit_w();
  int code = kExitOk;
  std::vector<report::PowerLimitRun> measured;
  for (double watts : config.power_limits_w) {
    if (interrupt_requested()) {
      code = worse(code, kExitInterrupted);
      break;
    }
    const std::string command = power_limit_command(config.power_limit_command, watts);
    std::fprintf(stderr, "speedmatrix run: power limit %s W: %s\n", watts_number(watts).c_str(), command.c_str());
    if (const int status = hooks.run_command(command); status != 0) {
      std::fprintf(stderr,
                   "speedmatrix run: setting the power limit to %s W failed (the command exited %d); the sweep stops "
                   "here, the limits measured so far are kept\n",
                   watts_number(watts).c_str(), status);
      code = worse(code, kExitFailure);
      break;
    }
    RunConfig one = config;
    one.out_dir = power_limit_folder(sweep_dir, watts);
    one.power_limits_w.clear();
    one.power_limit_command.clear();
    std::string folder;
    const int status = hooks.run_matrix(one, &folder);
    code = worse(code, status);
    if (!folder.empty()) {
      if (runs) runs->push_back({folder, status});
      if (auto r = read_result_file((std::filesystem::path(folder) / kResultFile).string()))
        measured.push_back({watts, std::move(*r)});
    }
    if (status == kExitInterrupted) break;
  }
  if (found_w) {
    const std::string command = power_limit_command(config.power_limit_command, *found_w);
    std::fprintf(stderr, "speedmatrix run: setting the power limit back to %s W: %s\n", watts_number(*found_w).c_str(),
                 command.c_str());
    if (const int status = hooks.run_command(command); status != 0)
      std::fprintf(stderr, "speedmatrix run: setting the limit back failed (the command exited %d): set it yourself\n",
                   status);
  } else {
    std::fprintf(stderr,
                 "speedmatrix run: the limit in force before the sweep could not be read, so it was not set back: "
                 "give --power-limit-restore W next time, and set it yourself now\n");
  }
  if (!measured.empty()) {
    const std::string md = (std::filesystem::path(sweep_dir) / "power-limits.md").string();
    const std::string html = (std::filesystem::path(sweep_dir) / "power-limits.html").string();
    const std::string text = report::power_limits_markdown(measured);
    auto ok = write_file_atomic(md, text);
    if (ok) ok = write_file_atomic(html, report::power_limits_html(measured));
    if (!ok) {
      std::fprintf(stderr, "speedmatrix run: %s\n", ok.error().message.c_str());
      code = worse(code, kExitFailure);
    }
    if (!config.quiet && !config.json_output) std::fputs(("\n" + text).c_str(), stdout);
    std::fprintf(stderr, "speedmatrix run: the sweep's summary: %s and %s\n", md.c_str(), html.c_str());
  }
  return code;
}

}  // namespace sm
