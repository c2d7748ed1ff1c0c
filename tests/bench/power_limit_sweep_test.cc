// run --power-limits (issue 34 point 5): the same matrix at each GPU power limit, the user's
// command setting each, the limit found set back however the sweep ends, and the summary of
// tokens per joule against output tok/s. The sweep's own logic with scripted hooks; one whole
// sweep through run_matrix against a scripted server with the fake NVML library, where the
// "command" changes the limit and the power the fake GPU reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "bench/power_limit_sweep.h"
#include "bench/runner.h"
#include "report/power_limit_report.h"
#include "result/result_json.h"
#include "support/fake_nvml/fake_nvml_control.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

TEST(PowerLimitSweep, TheCommandGetsEachLimitWhereItsPlaceholderIs) {
  EXPECT_EQ(power_limit_command("sudo nvidia-smi -pl {watts}", 250), "sudo nvidia-smi -pl 250");
  EXPECT_EQ(power_limit_command("set {watts} && log {watts}W", 262.5), "set 262.5 && log 262.5W");
  EXPECT_EQ(power_limit_folder("runs/x", 300), "runs/x/power-300W");
}

TEST(PowerLimitSweep, RefusesFlagsThatCannotSweep) {
  RunConfig c;
  EXPECT_TRUE(check_power_limit_flags(c));  // no sweep
  c.power_limit_command = "nvidia-smi -pl {watts}";
  EXPECT_FALSE(check_power_limit_flags(c));  // a command without limits
  c.power_limits_w = {250, 300};
  EXPECT_TRUE(check_power_limit_flags(c));
  c.power_limit_command.clear();
  auto no_command = check_power_limit_flags(c);
  ASSERT_FALSE(no_command);
  EXPECT_NE(no_command.error().message.find("--power-limit-command"), std::string::npos);
  c.power_limit_command = "nvidia-smi -pl 300";
  auto no_placeholder = check_power_limit_flags(c);
  ASSERT_FALSE(no_placeholder);
  EXPECT_NE(no_placeholder.error().message.find("{watts}"), std::string::npos);
  c.power_limit_command = "nvidia-smi -pl {watts}";
  c.power_limits_w = {250, 0};
  EXPECT_FALSE(check_power_limit_flags(c));
  c.power_limits_w = {250, 250};
  EXPECT_NE(check_power_limit_flags(c).error().message.find("twice"), std::string::npos);
  c.power_limits_w = {250};
  c.resume_dir = "runs/x";
  EXPECT_FALSE(check_power_limit_flags(c));
}

// A finished run at `watts`, as the fake matrix writes it: one cell whose speed and tokens per
// joule follow the limit, and GPU telemetry that reports `reported_w`.
RunResult fake_run(double watts, double reported_w) {
  RunResult r;
  r.run_id = fmt::format("pl-{}", watts);
  r.kind = "measured";
  r.engine.kind = "llamacpp";
  r.engine.model = "bench";
  r.hardware.gpus.push_back(GpuInfo{"NVIDIA GeForce RTX 3090", int64_t{24} << 30, "595.99.02", reported_w, "Gen4 x16"});
  TelemetryInfo t;
  t.gpu_source = "nvml";
  TelemetryGpu g;
  g.index = 0;
  g.name = "NVIDIA GeForce RTX 3090";
  g.power_limit_w = reported_w;
  t.gpus = {g};
  t.server_gpus = {0};
  t.server_gpus_source = "declared";
  r.telemetry = t;
  for (int64_t concurrency : {1, 8}) {
    DecodeCell c;
    c.context = 0;
    c.concurrency = concurrency;
    c.status = CellStatus::Valid;
    c.total_tok_s = watts * static_cast<double>(concurrency);  // faster at a higher limit...
    c.telemetry.tokens_per_joule = 1000.0 / watts * static_cast<double>(concurrency);  // ...thriftier at a lower one
    r.decode.push_back(c);
  }
  return r;
}

struct ScriptedHooks {
  std::vector<std::string> commands;
  std::vector<std::string> matrix_folders;
  std::vector<int> matrix_status;  ///< by call; missing: 0
  int failing_command = -1;        ///< the index of the command that fails
  std::optional<double> current_w = 350;
  double reported_offset_w = 0;    ///< what the GPUs report beyond the limit asked for

  PowerLimitHooks hooks() {
    PowerLimitHooks h;
    h.run_command = [this](const std::string& command) {
      commands.push_back(command);
      return static_cast<int>(commands.size()) - 1 == failing_command ? 1 : 0;
    };
    h.run_matrix = [this](const RunConfig& c, std::string* folder) {
      EXPECT_TRUE(c.power_limits_w.empty()) << "each limit's run is a plain run";
      fs::create_directories(c.out_dir);
      const double watts = std::stod(fs::path(c.out_dir).filename().string().substr(6));
      EXPECT_TRUE(write_result_file(c.out_dir + "/result.json", fake_run(watts, watts + reported_offset_w)));
      *folder = c.out_dir;
      matrix_folders.push_back(c.out_dir);
      const size_t call = matrix_folders.size() - 1;
      return call < matrix_status.size() ? matrix_status[call] : 0;
    };
    h.current_limit_w = [this] { return current_w; };
    return h;
  }
};

RunConfig sweep_config(const test::TempDir& dir) {
  RunConfig c;
  c.out_dir = dir.file("sweep");
  c.power_limits_w = {250, 300};
  c.power_limit_command = "set-limit {watts}";
  c.quiet = true;
  return c;
}

TEST(PowerLimitSweep, MeasuresEachLimitInItsFolderAndSetsTheFoundLimitBack) {
  test::TempDir dir;
  ScriptedHooks s;
  std::vector<PowerLimitRunFolder> runs;
  EXPECT_EQ(run_power_limit_sweep(sweep_config(dir), s.hooks(), &runs), kExitOk);
  EXPECT_EQ(s.commands, (std::vector<std::string>{"set-limit 250", "set-limit 300", "set-limit 350"}));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].folder, dir.file("sweep/power-250W"));
  EXPECT_EQ(runs[1].folder, dir.file("sweep/power-300W"));

  std::ifstream md_file(dir.file("sweep/power-limits.md"));
  const std::string md((std::istreambuf_iterator<char>(md_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("# Power-limit sweep"), std::string::npos) << md;
  // By limit: 250 W's best is 2,000 tok/s at 0 × 8 with 32 tok/J; 300 W's 2,400 at 26.7.
  EXPECT_NE(md.find("| 250 W | 250 W | 2,000.0 (0 × 8) | 32 | 32 (0 × 8) | 2,000.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 300 W | 300 W | 2,400.0 (0 × 8) | 26.7 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0 × 1 | 250.0 tok/s · 4 tok/J | 300.0 tok/s · 3.33 tok/J |"), std::string::npos) << md;
  EXPECT_EQ(md.find("did not set the limit"), std::string::npos);
  std::ifstream html_file(dir.file("sweep/power-limits.html"));
  const std::string html((std::istreambuf_iterator<char>(html_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("0 × 8 at 300 W: 2,400.0 tok/s, 26.7 tok/J"), std::string::npos);
}

TEST(PowerLimitSweep, SaysWhenTheGpusDidNotTakeTheLimit) {
  test::TempDir dir;
  ScriptedHooks s;
  s.reported_offset_w = 50;  // the command "worked" but the GPUs stayed 50 W higher
  EXPECT_EQ(run_power_limit_sweep(sweep_config(dir), s.hooks()), kExitOk);
  const std::string md = report::power_limits_markdown({{250, fake_run(250, 300)}});
  EXPECT_NE(md.find("Asked for 250 W, the GPUs reported 300 W: the command did not set the limit"), std::string::npos)
      << md;
  EXPECT_EQ(report::enforced_limit_w(fake_run(250, 300)), 300);
  EXPECT_FALSE(report::enforced_limit_w(RunResult{}).has_value());
}

TEST(PowerLimitSweep, AFailedSetStopsTheSweepKeepsWhatWasMeasuredAndStillSetsTheLimitBack) {
  test::TempDir dir;
  ScriptedHooks s;
  s.failing_command = 1;  // setting 300 W fails
  EXPECT_EQ(run_power_limit_sweep(sweep_config(dir), s.hooks()), kExitFailure);
  EXPECT_EQ(s.commands, (std::vector<std::string>{"set-limit 250", "set-limit 300", "set-limit 350"}));
  EXPECT_EQ(s.matrix_folders.size(), 1u);
  EXPECT_TRUE(fs::exists(dir.file("sweep/power-250W/result.json")));
  EXPECT_TRUE(fs::exists(dir.file("sweep/power-limits.md")));
}

TEST(PowerLimitSweep, AnInterruptedLimitEndsTheSweepAndTheGivenRestoreLimitWins) {
  test::TempDir dir;
  ScriptedHooks s;
  s.matrix_status = {kExitCellErrors, kExitInterrupted};
  RunConfig c = sweep_config(dir);
  c.power_limits_w = {250, 300, 350};
  c.power_limit_restore_w = 320;
  EXPECT_EQ(run_power_limit_sweep(c, s.hooks()), kExitInterrupted);
  EXPECT_EQ(s.commands, (std::vector<std::string>{"set-limit 250", "set-limit 300", "set-limit 320"}));
  // Nothing read, nothing given: the limit is left as the sweep left it (and the user is told).
  ScriptedHooks unread;
  unread.current_w = std::nullopt;
  test::TempDir other;
  EXPECT_EQ(run_power_limit_sweep(sweep_config(other), unread.hooks()), kExitOk);
  EXPECT_EQ(unread.commands, (std::vector<std::string>{"set-limit 250", "set-limit 300"}));
}

std::string gpu_script(double limit_w, double power_w) {
  return fmt::format(
      R"({{"gpus":[{{"name":"NVIDIA GeForce RTX 3090","mem_total_bytes":25769803776,"mem_used_bytes":1073741824,)"
      R"("sm_clock_mhz":1900,"mem_clock_mhz":9751,"sm_clock_max_mhz":2100,"mem_clock_max_mhz":9751,"temp_c":66,)"
      R"("util_pct":97,"mem_util_pct":40,"pstate":2,"pcie_gen":4,"pcie_width":16,"pcie_gen_max":4,)"
      R"("pcie_width_max":16,"power_limit_w":{},"power_w":{},"energy_start_j":5000,"clocks_event_reasons":0}}]}})",
      limit_w, power_w);
}

TEST(PowerLimitSweep, AWholeSweepAgainstAScriptedServerWithFakeNvml) {
  test::FakeNvmlControl nvml(FAKE_NVML_PATH);
  ASSERT_TRUE(nvml.loaded()) << nvml.load_error();
  ASSERT_TRUE(nvml.set_script(gpu_script(350, 300))) << nvml.last_error();
  test::ScriptedServer server;
  test::TempDir dir;
  fs::create_directories(dir.path() / "host");
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {0};
  c.contexts_given = true;
  c.matrix.concurrency = {2};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 4096;
  c.matrix.duration_s = 1;
  c.out_dir = dir.file("sweep");
  c.quiet = true;
  c.client_selftest = false;
  c.nvml_lib = FAKE_NVML_PATH;
  c.host_root = (dir.path() / "host").string();
  c.telemetry_interval_s = 0.1;
  c.power_limits_w = {200, 300};
  c.power_limit_command = "nvidia-smi -pl {watts}";
  std::vector<std::string> commands;
  PowerLimitHooks hooks = system_power_limit_hooks(c);
  hooks.current_limit_w = [] { return std::optional<double>(350); };
  // The "command": the fake GPU now enforces the limit and draws 80% of it.
  hooks.run_command = [&](const std::string& command) {
    commands.push_back(command);
    const double watts = std::stod(command.substr(command.rfind(' ') + 1));
    return nvml.set_script(gpu_script(watts, 0.8 * watts)) ? 0 : 1;
  };
  std::vector<PowerLimitRunFolder> runs;
  ASSERT_EQ(run_power_limit_sweep(c, hooks, &runs), kExitOk);
  EXPECT_EQ(commands, (std::vector<std::string>{"nvidia-smi -pl 200", "nvidia-smi -pl 300", "nvidia-smi -pl 350"}));
  ASSERT_EQ(runs.size(), 2u);
  std::vector<double> tokens_per_joule;
  for (size_t i = 0; i < runs.size(); ++i) {
    auto r = read_result_file(runs[i].folder + "/result.json");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(report::enforced_limit_w(*r), c.power_limits_w[i]);
    ASSERT_EQ(r->decode.size(), 1u);
    ASSERT_EQ(r->decode[0].status, CellStatus::Valid) << r->decode[0].error;
    ASSERT_TRUE(r->decode[0].telemetry.tokens_per_joule.has_value());
    // The scripted server's speed does not follow the limit, its GPU's power does: tok/J = tok/s ÷ W.
    EXPECT_NEAR(*r->decode[0].telemetry.tokens_per_joule, *r->decode[0].total_tok_s / (0.8 * c.power_limits_w[i]),
                0.05 * *r->decode[0].telemetry.tokens_per_joule);
    EXPECT_TRUE(fs::exists(runs[i].folder + "/report.md") || fs::exists(runs[i].folder + "/report.html"));
  }
  EXPECT_TRUE(fs::exists(dir.file("sweep/power-limits.md")));
  EXPECT_TRUE(fs::exists(dir.file("sweep/power-limits.html")));
}

}  // namespace
}  // namespace sm
