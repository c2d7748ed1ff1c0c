// A run with the fake NVML library (same C ABI as libnvidia-ml.so.1): every cell's power, energy,
// tokens per joule, clock, temperature and throttle verdict follow the script; without NVML the
// run still works and says why; a remote server's cells get no GPU figures.
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>

#include "bench/runner.h"
#include "result/result_json.h"
#include "support/fake_nvml/fake_nvml_control.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"
#include "telemetry/telemetry_series.h"

namespace sm {
namespace {

using test::ScriptedServer;

RunConfig one_cell(const ScriptedServer& server, const std::string& out_dir) {
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {0};
  c.contexts_given = true;
  c.matrix.concurrency = {4};
  c.matrix.prefill_contexts = {512};
  c.matrix.max_output_tokens = 4096;
  c.matrix.duration_s = 1.5;
  c.out_dir = out_dir;
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  c.nvml_lib = FAKE_NVML_PATH;
  c.telemetry_interval_s = 0.1;
  return c;
}

// Two GPUs at a constant 150 W each, SM clock `clock_mhz` of 2,100, 97% busy, reason bits `bits`.
std::string two_gpu_script(uint64_t bits, double clock_mhz) {
  std::string gpu = fmt::format(
      R"({{"name":"NVIDIA GeForce RTX 3090","mem_total_bytes":25769803776,"mem_used_bytes":1073741824,)"
      R"("sm_clock_mhz":{},"mem_clock_mhz":9751,"sm_clock_max_mhz":2100,"mem_clock_max_mhz":9751,"temp_c":66,)"
      R"("util_pct":97,"mem_util_pct":40,"pstate":2,"pcie_gen":4,"pcie_width":16,"pcie_gen_max":4,)"
      R"("pcie_width_max":16,"power_limit_w":350,"power_w":150,"energy_start_j":5000,"clocks_event_reasons":{}}})",
      clock_mhz, bits);
  return R"({"gpus":[)" + gpu + "," + gpu + "]}";
}

const DecodeCell& only_cell(const RunResult& r) { return r.decode.at(0); }

struct VerdictCase {
  uint64_t bits;
  double clock_mhz;
  const char* verdict;
};

class RunTelemetry : public ::testing::TestWithParam<VerdictCase> {};

TEST_P(RunTelemetry, CellsFollowTheFakeGpusScript) {
  const VerdictCase& v = GetParam();
  test::FakeNvmlControl nvml(FAKE_NVML_PATH);
  ASSERT_TRUE(nvml.loaded()) << nvml.load_error();
  ASSERT_TRUE(nvml.set_script(two_gpu_script(v.bits, v.clock_mhz))) << nvml.last_error();
  ScriptedServer server;
  test::TempDir dir;
  ASSERT_EQ(run_matrix(one_cell(server, dir.file("run"))), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;

  ASSERT_TRUE(result->telemetry.has_value());
  const TelemetryInfo& info = *result->telemetry;
  EXPECT_EQ(info.gpu_source, "nvml");
  EXPECT_TRUE(info.gpu_unavailable.empty()) << info.gpu_unavailable;
  ASSERT_EQ(info.gpus.size(), 2u);
  EXPECT_EQ(info.gpus[0].name, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(*info.gpus[0].power_limit_w, 350);
  EXPECT_EQ(*info.gpus[1].sm_clock_max_mhz, 2100);
  EXPECT_EQ(info.gpus[0].pcie, "Gen4 x16 (max Gen4 x16)");
  EXPECT_FALSE(info.client_side_only);
  EXPECT_TRUE(std::filesystem::exists(dir.file("run/telemetry.jsonl")));

  const DecodeCell& c = only_cell(*result);
  ASSERT_EQ(c.status, CellStatus::Valid) << c.error;
  const CellTelemetry& t = c.telemetry;
  ASSERT_TRUE(t.gpu_power_w && t.gpu_energy_j && t.tokens_per_joule) << "no GPU figures";
  EXPECT_NEAR(*t.gpu_power_w, 300, 3);                      // 2 x 150 W, within 1%
  EXPECT_NEAR(*t.gpu_energy_j, 300 * *c.measured_s, 3 * *c.measured_s);
  EXPECT_NEAR(*t.tokens_per_joule, static_cast<double>(*c.output_tokens) / (300 * *c.measured_s),
              0.01 * *t.tokens_per_joule);
  EXPECT_NEAR(*t.gpu_sm_clock_mhz, v.clock_mhz, 0.01 * v.clock_mhz);
  EXPECT_EQ(*t.gpu_temp_max_c, 66);
  EXPECT_EQ(t.throttle, v.verdict);

  // The prefill row has its figures too (its request was shorter than a sample apart, or not).
  ASSERT_EQ(result->prefill.at(0).status, CellStatus::Valid);
  const CellTelemetry& p = result->prefill[0].telemetry;
  ASSERT_TRUE(p.gpu_power_w);
  EXPECT_NEAR(*p.gpu_power_w, 300, 3);

  // The series file alone says the same about the cell.
  auto series = read_telemetry_file(dir.file("run/telemetry.jsonl"));
  ASSERT_TRUE(series.has_value()) << series.error().message;
  ASSERT_FALSE(series->gpu.empty());
  bool found = false;
  for (const auto& w : series->windows)
    if (w.phase == "decode" && w.concurrency == 4) {
      found = true;
      EXPECT_NEAR(static_cast<double>(w.end_ns - w.begin_ns) / 1e9, *c.measured_s, 1e-6);
      EXPECT_EQ(*w.tokens, *c.output_tokens);
    }
  EXPECT_TRUE(found);
}

INSTANTIATE_TEST_SUITE_P(Verdicts, RunTelemetry,
                         ::testing::Values(VerdictCase{0, 1900, "ok"}, VerdictCase{0x4, 1700, "power_capped"},
                                           VerdictCase{0x20, 1400, "thermal"}, VerdictCase{0x8, 900, "hw_slowdown"},
                                           VerdictCase{0, 1500, "clocks_below_max"}));

TEST(RunTelemetryWithout, NvmlTheRunWorksAndSaysWhy) {
  ScriptedServer server;
  test::TempDir dir;
  RunConfig config = one_cell(server, dir.file("run"));
  config.nvml_lib = dir.file("no-such-libnvidia-ml.so.1");
  config.sys_root = dir.path().string();  // nor an AMD GPU of this machine
  config.matrix.duration_s = 0.5;
  ASSERT_EQ(run_matrix(config), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  ASSERT_TRUE(result->telemetry.has_value());
  EXPECT_TRUE(result->telemetry->gpu_source.empty());
  EXPECT_NE(result->telemetry->gpu_unavailable.find("no-such-libnvidia-ml.so.1"), std::string::npos)
      << result->telemetry->gpu_unavailable;
  EXPECT_TRUE(result->telemetry->server);  // the scripted server's /metrics
  const DecodeCell& c = only_cell(*result);
  EXPECT_EQ(c.status, CellStatus::Valid);
  EXPECT_FALSE(c.telemetry.gpu_power_w);
  EXPECT_TRUE(c.telemetry.throttle.empty());
  EXPECT_TRUE(c.telemetry.server_waiting_max.has_value());
}

TEST(RunTelemetryWithout, TelemetryWhenAskedNot) {
  ScriptedServer server;
  test::TempDir dir;
  RunConfig config = one_cell(server, dir.file("run"));
  config.telemetry = false;
  config.matrix.duration_s = 0.5;
  ASSERT_EQ(run_matrix(config), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value());
  EXPECT_FALSE(result->telemetry.has_value());
  EXPECT_FALSE(std::filesystem::exists(dir.file("run/telemetry.jsonl")));
  EXPECT_FALSE(only_cell(*result).telemetry.server_waiting_max.has_value());
}

// A server on another machine: the GPUs read here are the client's. The series keeps them; the
// cells get no GPU figures, and the result says the telemetry is client-side only.
TEST(RunTelemetryRemote, GpuFiguresStayOutOfTheCells) {
  test::FakeNvmlControl nvml(FAKE_NVML_PATH);
  ASSERT_TRUE(nvml.set_script(two_gpu_script(0, 1900))) << nvml.last_error();
  ScriptedServer server;
  test::TempDir dir;
  RunConfig config = one_cell(server, dir.file("run"));
  config.matrix.duration_s = 0.5;
  config.target_locality = TargetLocality{false, "10.0.0.7 is not an address of this machine"};
  ASSERT_EQ(run_matrix(config), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->telemetry.has_value());
  EXPECT_TRUE(result->telemetry->client_side_only);
  EXPECT_EQ(result->telemetry->gpu_source, "nvml");
  const DecodeCell& c = only_cell(*result);
  EXPECT_FALSE(c.telemetry.gpu_power_w);
  EXPECT_FALSE(c.telemetry.tokens_per_joule);
  EXPECT_TRUE(c.telemetry.throttle.empty());
  auto series = read_telemetry_file(dir.file("run/telemetry.jsonl"));
  ASSERT_TRUE(series.has_value());
  EXPECT_FALSE(series->gpu.empty());
}

// Three GPUs, the server declared on GPU 1 (issue 31): GPU 0 busy at 150 W (another job), GPU 1
// busy at 200 W, GPU 2 idle at 50 W. Only GPU 1 counts.
std::string three_gpu_script() {
  auto gpu = [](double power_w, double util_pct, const char* uuid) {
    return fmt::format(
        R"({{"name":"NVIDIA H100 80GB HBM3","uuid":"{}","sm_clock_mhz":1900,"sm_clock_max_mhz":1980,"temp_c":60,)"
        R"("util_pct":{},"mem_util_pct":40,"power_limit_w":700,"power_w":{},"energy_start_j":5000,)"
        R"("clocks_event_reasons":0,"processes":[]}})",
        uuid, util_pct, power_w);
  };
  return R"({"gpus":[)" + gpu(150, 97, "GPU-aaaa") + "," + gpu(200, 90, "GPU-bbbb") + "," + gpu(50, 0, "GPU-cccc") + "]}";
}

// The one-cell run on the three GPUs, --server-gpus `declared` ("" = not declared): its exit
// code and, where it wrote one, its result.
struct ThreeGpuRun {
  int rc = -1;
  Result<RunResult> result;
};

ThreeGpuRun run_on_three_gpus(const std::string& declared) {
  test::FakeNvmlControl nvml(FAKE_NVML_PATH);
  EXPECT_TRUE(nvml.set_script(three_gpu_script())) << nvml.last_error();
  ScriptedServer server;
  test::TempDir dir;
  RunConfig config = one_cell(server, dir.file("run"));
  config.matrix.duration_s = 0.5;
  config.server_gpus = declared;
  ThreeGpuRun out;
  out.rc = run_matrix(config);
  out.result = read_result_file(dir.file("run/result.json"));
  return out;
}

TEST(RunTelemetryServerGpus, OnlyTheDeclaredGpuCounts) {
  ThreeGpuRun run = run_on_three_gpus("GPU-bbbb");
  ASSERT_EQ(run.rc, 0);
  ASSERT_TRUE(run.result.has_value()) << run.result.error().message;
  const RunResult& r = *run.result;
  ASSERT_TRUE(r.telemetry.has_value());
  EXPECT_EQ(r.telemetry->gpus.size(), 3u);  // every GPU is still sampled
  EXPECT_EQ(r.telemetry->server_gpus, std::vector<int>{1});
  EXPECT_EQ(r.telemetry->server_gpus_source, "declared");
  const CellTelemetry& t = only_cell(r).telemetry;
  ASSERT_TRUE(t.gpu_power_w);
  EXPECT_NEAR(*t.gpu_power_w, 200, 2);  // not 400 W (all three)
  EXPECT_TRUE(t.per_gpu.empty());
  ASSERT_TRUE(r.prefill.at(0).telemetry.gpu_power_w);
  EXPECT_NEAR(*r.prefill[0].telemetry.gpu_power_w, 200, 2);
}

TEST(RunTelemetryServerGpus, ADeclarationNamingNoGpuStopsTheRunBeforeMeasuring) {
  ThreeGpuRun run = run_on_three_gpus("3");
  EXPECT_EQ(run.rc, kExitFailure);
  if (run.result) {
    EXPECT_TRUE(run.result->decode.empty() || run.result->decode[0].status != CellStatus::Valid);
  }
}

// Nothing says which GPUs (no process of the server listed, no declaration): all three count,
// each with its own figures, and the run says how to narrow them.
TEST(RunTelemetryServerGpus, AllGpusWithPerGpuFiguresAndANote) {
  ThreeGpuRun run = run_on_three_gpus("");
  ASSERT_EQ(run.rc, 0);
  ASSERT_TRUE(run.result.has_value());
  EXPECT_EQ(run.result->telemetry->server_gpus_source, "all");
  const CellTelemetry& t = only_cell(*run.result).telemetry;
  ASSERT_EQ(t.per_gpu.size(), 3u);
  EXPECT_NEAR(*t.per_gpu[1].power_w, 200, 2);
  EXPECT_NEAR(*t.gpu_power_w, 400, 4);
  bool said = false;
  for (const auto& w : run.result->warnings) said |= w.find("--server-gpus") != std::string::npos;
  EXPECT_TRUE(said);
}

// Without NVML, an AMD GPU's sysfs files (tests/fixtures/amdgpu/mi300x) are the GPU source: the
// run records them and the cells get their figures.
TEST(RunTelemetryWithout, NvmlAnAmdGpuIsSampledThroughSysfs) {
  ScriptedServer server;
  test::TempDir dir;
  RunConfig config = one_cell(server, dir.file("run"));
  config.nvml_lib = dir.file("no-such-libnvidia-ml.so.1");
  config.sys_root = SPEEDMATRIX_SOURCE_DIR "/tests/fixtures/amdgpu/mi300x";
  config.matrix.duration_s = 0.5;
  ASSERT_EQ(run_matrix(config), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  ASSERT_TRUE(result->telemetry.has_value());
  EXPECT_EQ(result->telemetry->gpu_source, "amdgpu-sysfs");
  EXPECT_TRUE(result->telemetry->gpu_unavailable.empty()) << result->telemetry->gpu_unavailable;
  ASSERT_EQ(result->telemetry->gpus.size(), 1u);
  EXPECT_EQ(result->telemetry->gpus[0].name, "AMD Instinct MI300X");
  EXPECT_EQ(result->telemetry->gpus[0].power_limit_w, 750);
  EXPECT_EQ(result->telemetry->gpus[0].pcie, "Gen5 x16 (max Gen5 x16)");
  const DecodeCell& c = only_cell(*result);
  EXPECT_EQ(c.status, CellStatus::Valid);
  ASSERT_TRUE(c.telemetry.gpu_power_w);
  EXPECT_NEAR(*c.telemetry.gpu_power_w, 652, 1e-6);
}

}  // namespace
}  // namespace sm
