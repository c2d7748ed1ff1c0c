// Energy per token and cost per million output tokens through a whole run (issue 34, point 4):
// a llama-server-like scripted server with the fake NVML library (GPU energy, the host an
// estimate), and the built-in engine with a RAPL counter under a fixture root (no GPU).
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "bench/runner.h"
#include "metrics/energy_cost.h"
#include "report/report.h"
#include "result/result_json.h"
#include "support/fake_nvml/fake_nvml_control.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

CostSettings prices() {
  CostSettings c;
  c.power_price_per_kwh = 0.15;
  c.currency = "USD";
  c.hardware_cost = 30000;
  c.amortize_years = 3;
  return c;
}

std::string one_gpu_script() {
  return R"({"gpus":[{"name":"NVIDIA GeForce RTX 3090","mem_total_bytes":25769803776,"mem_used_bytes":1073741824,)"
         R"("sm_clock_mhz":1900,"mem_clock_mhz":9751,"sm_clock_max_mhz":2100,"mem_clock_max_mhz":9751,"temp_c":66,)"
         R"("util_pct":97,"mem_util_pct":40,"pstate":2,"pcie_gen":4,"pcie_width":16,"pcie_gen_max":4,)"
         R"("pcie_width_max":16,"power_limit_w":350,"power_w":200,"energy_start_j":5000,"clocks_event_reasons":0}]})";
}

TEST(RunEnergy, ScriptedServerWithFakeNvmlGivesEnergyAndCost) {
  test::FakeNvmlControl nvml(FAKE_NVML_PATH);
  ASSERT_TRUE(nvml.loaded()) << nvml.load_error();
  ASSERT_TRUE(nvml.set_script(one_gpu_script())) << nvml.last_error();
  test::ScriptedServer server;
  test::TempDir dir;
  fs::create_directories(dir.path() / "host");  // no RAPL: the host is an estimate
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {0};
  c.contexts_given = true;
  c.matrix.concurrency = {2, 4};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 4096;
  c.matrix.duration_s = 1;
  c.out_dir = dir.file("run");
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  c.nvml_lib = FAKE_NVML_PATH;
  c.host_root = (dir.path() / "host").string();
  c.telemetry_interval_s = 0.1;
  c.cost = prices();
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->settings.cost.power_price_per_kwh, 0.15);
  EXPECT_EQ(result->settings.cost.currency, "USD");

  for (const DecodeCell& cell : result->decode) {
    ASSERT_EQ(cell.status, CellStatus::Valid) << cell.error;
    ASSERT_TRUE(cell.energy.has_value()) << "c=" << cell.concurrency;
    const CellEnergy& e = *cell.energy;
    const double t = *cell.measured_s;
    const double out = static_cast<double>(*cell.output_tokens);
    const double gpu_j = *cell.telemetry.gpu_energy_j;
    EXPECT_NEAR(gpu_j, 200 * t, 2 * t);  // the script's 200 W
    EXPECT_EQ(e.output_tokens, *cell.output_tokens);
    EXPECT_NEAR(*e.gpu_j_per_output_token, gpu_j / out, 1e-12);
    EXPECT_EQ(e.host_source, "estimate");
    EXPECT_NEAR(e.host_energy_j, kDefaultHostBusyPowerW * t, 1e-9);
    EXPECT_NEAR(e.j_per_output_token, (gpu_j + kDefaultHostBusyPowerW * t) / out, 1e-12);
    EXPECT_GE(e.total_tokens, e.output_tokens);
    // Busy all the time (the default): energy = (GPU + host) J per token x 1e6 / 3.6e6 kWh x price.
    EXPECT_NEAR(*e.energy_cost_per_mtok, e.j_per_output_token * 1e6 / 3.6e6 * 0.15, 1e-9);
    EXPECT_NEAR(*e.hardware_cost_per_mtok, 30000.0 / (3 * 8766 * 3600.0) * 1e6 / (out / t), 1e-9);
    EXPECT_NEAR(*e.cost_per_mtok, *e.energy_cost_per_mtok + *e.hardware_cost_per_mtok, 1e-12);
  }
  // A capacity point where users were served has a cost too.
  bool priced_point = false;
  for (const auto& p : result->capacity)
    if (p.users > 0) {
      ASSERT_TRUE(p.cost_per_mtok.has_value()) << p.context << " " << p.floor_tok_s;
      priced_point = true;
    }
  EXPECT_TRUE(priced_point);

  const std::string md = render_report(*result, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("Energy per output token"), std::string::npos);
  EXPECT_NE(md.find(" USD"), std::string::npos);
  const std::string csv = render_report(*result, ReportFormat::Csv, {});
  EXPECT_NE(csv.find(",estimate,"), std::string::npos);
}

TEST(RunEnergy, EmbeddedEngineWithRaplCountsTheHost) {
  test::TempDir dir;
  const fs::path zone = dir.path() / "host/sys/class/powercap/intel-rapl:0";
  fs::create_directories(zone);
  std::ofstream(zone / "energy_uj") << "123456789\n";  // a counter that does not move: 0 J
  fs::create_directories(dir.path() / "host/proc");
  std::ofstream(dir.path() / "host/proc/stat") << "cpu  10 0 5 85\n";  // the host source needs /proc/stat
  RunConfig c;
  c.embedded_sim = true;
  c.matrix.contexts = {0};
  c.contexts_given = true;
  c.matrix.concurrency = {1};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 64;
  c.matrix.duration_s = 0.5;
  c.out_dir = dir.file("run");
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  c.host_root = (dir.path() / "host").string();
  c.telemetry_interval_s = 0.1;
  c.cost = prices();
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  ASSERT_EQ(result->decode.size(), 1u);
  const DecodeCell& cell = result->decode[0];
  ASSERT_EQ(cell.status, CellStatus::Valid) << cell.error;
  ASSERT_TRUE(cell.telemetry.host_energy_j.has_value()) << "RAPL read under the fixture root";
  EXPECT_EQ(*cell.telemetry.host_energy_j, 0);
  ASSERT_TRUE(cell.energy.has_value());
  const CellEnergy& e = *cell.energy;
  EXPECT_EQ(e.host_source, "rapl");
  EXPECT_FALSE(e.gpu_j_per_output_token.has_value()) << "the simulated engine has no GPU";
  EXPECT_EQ(e.j_per_output_token, 0);
  EXPECT_EQ(*e.energy_cost_per_mtok, 0);
  const double tok_s = static_cast<double>(*cell.output_tokens) / *cell.measured_s;
  EXPECT_NEAR(*e.cost_per_mtok, 30000.0 / (3 * 8766 * 3600.0) * 1e6 / tok_s, 1e-9);
}

TEST(RunEnergy, NoTelemetryNoEnergy) {
  test::TempDir dir;
  RunConfig c;
  c.embedded_sim = true;
  c.matrix.contexts = {0};
  c.contexts_given = true;
  c.matrix.concurrency = {1};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 64;
  c.matrix.duration_s = 0.3;
  c.out_dir = dir.file("run");
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  c.telemetry = false;
  c.cost = prices();
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_FALSE(result->decode.at(0).energy.has_value()) << "no measured energy: no figures, no invented ones";
  EXPECT_EQ(render_report(*result, ReportFormat::Markdown, {}).find("Energy per output token"), std::string::npos);
}

}  // namespace
}  // namespace sm
