#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "report/report_sections.h"
#include "report/telemetry_model.h"

namespace sm::report {
namespace {

PrefillRow row(int64_t context, double ttft_ms) {
  PrefillRow p;
  p.context = context;
  p.ttft_ms = ttft_ms;
  p.prompt_tok_s = static_cast<double>(context) / (ttft_ms / 1e3);
  p.prompt_tokens = context;
  return p;
}

std::vector<std::string> slow_row_warnings(const RunResult& r) {
  std::vector<std::string> out;
  for (const auto& f : section::findings(r))
    if (f.text.find("first token took") != std::string::npos) out.push_back(f.text);
  return out;
}

// What the H200 run showed before engines were warmed up (docs/performance.md): the first row
// paid the Vulkan backend's pipeline compilation.
TEST(ReportFindings, APrefillRowSlowerThanALongerOneIsCalledOut) {
  RunResult r;
  r.prefill = {row(1024, 4734.1), row(8192, 145.7), row(16384, 400.0)};
  auto warnings = slow_row_warnings(r);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "Prefill 1K: its first token took 4,734 ms, longer than the 146 ms of the longer 8K prompt: this row paid "
            "for more than its prompt (an engine's one-time start-up work, another client's load); measure it again.");
}

TEST(ReportFindings, PrefillRowsInTheirOrderOrWithinTheSlackAreNot) {
  RunResult r;
  r.prefill = {row(1024, 60), row(8192, 146), row(16384, 400)};
  EXPECT_TRUE(slow_row_warnings(r).empty());
  // Short rows are dominated by a fixed cost and may come out a little slower than a longer one.
  r.prefill = {row(128, 38), row(512, 12)};  // 38 <= 1.5 x 12 + 20
  EXPECT_TRUE(slow_row_warnings(r).empty());
  r.prefill = {row(128, 39), row(512, 12)};
  EXPECT_EQ(slow_row_warnings(r).size(), 1u);
  // Rows without numbers say nothing either way.
  r.prefill = {row(1024, 4734.1), row(8192, 145.7)};
  r.prefill[1].status = CellStatus::Error;
  r.prefill[1].ttft_ms.reset();
  EXPECT_TRUE(slow_row_warnings(r).empty());
}

// GPU utilisation over a window, as NVML sampled it (docs/METRICS.md, "Telemetry").
RunResult sampled_run(std::initializer_list<double> prefill_util, std::initializer_list<double> decode_util) {
  RunResult r;
  r.telemetry = TelemetryInfo{};
  r.telemetry->gpu_source = "nvml";
  int64_t context = 1024;
  for (double u : prefill_util) {
    PrefillRow p = row(context, 100);
    p.telemetry.gpu_util_pct = u;
    p.telemetry.gpu_sm_clock_mhz = u < 5 ? 349 : 1980;
    r.prefill.push_back(p);
    context *= 2;
  }
  int64_t streams = 1;
  for (double u : decode_util) {
    DecodeCell c;
    c.context = 1024;
    c.concurrency = streams;
    c.total_tok_s = 100.0 * static_cast<double>(streams);
    c.telemetry.gpu_util_pct = u;
    r.decode.push_back(c);
    streams *= 4;
  }
  return r;
}

std::vector<std::string> texts(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.text);
  return out;
}

TEST(ReportFindings, AnIdleGpuInOneMeasurementIsCalledOutThere) {
  // The H200 run: the first prefill row at 0% while llama.cpp compiled its pipelines.
  auto found = texts(gpu_idle_findings(sampled_run({0.0, 18.0}, {68.0, 75.0, 70.0})));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0],
            "Prefill 1K: the GPU was idle during this measurement (utilisation 0%, SM clock 349 MHz): its time went "
            "elsewhere (work the engine does once, such as compiling kernels, or its CPU side); measure it again.");
  // And it reaches the report's warnings.
  auto all = texts(section::findings(sampled_run({0.0, 18.0}, {68.0, 75.0, 70.0})));
  EXPECT_NE(std::find(all.begin(), all.end(), found[0]), all.end());
}

TEST(ReportFindings, AGpuIdleInEveryMeasurementMeansTheServerDidNotRunOnIt) {
  // The H200 machine's first run: llama-server on the CPU, the GPU credited but never used.
  auto found = texts(gpu_idle_findings(sampled_run({0.0}, {0.0, 1.0, 0.0})));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0],
            "The GPU was idle in all 4 measurements it was sampled in (utilisation below 5%): the server did not run "
            "on it, so these numbers are not this GPU's, and they have no power or tokens per joule. Check how the "
            "server was started (layers offloaded to the GPU, the device it uses, --server-gpus).");
}

TEST(ReportFindings, NoIdleWarningForBusyGpusClientReadingsOrNoSamples) {
  EXPECT_TRUE(gpu_idle_findings(sampled_run({30.0}, {68.0, 5.0})).empty());  // 5% is not below 5%
  RunResult remote = sampled_run({0.0}, {0.0, 0.0});
  remote.telemetry->client_side_only = true;  // the client's GPU: says nothing of the server
  EXPECT_TRUE(gpu_idle_findings(remote).empty());
  RunResult unsampled = sampled_run({0.0}, {0.0});
  unsampled.prefill[0].telemetry.gpu_util_pct.reset();
  unsampled.decode[0].telemetry.gpu_util_pct.reset();
  EXPECT_TRUE(gpu_idle_findings(unsampled).empty());
  RunResult failed = sampled_run({}, {0.0, 60.0});
  failed.decode[0].status = CellStatus::Error;  // no numbers: nothing to explain
  EXPECT_TRUE(gpu_idle_findings(failed).empty());
}

}  // namespace
}  // namespace sm::report

namespace sm::report {
namespace {

// Issue 31: on a machine with several GPUs the hardware facts say which are the server's and how
// that was found, list the power limits of those only, and each GPU's decode figures.
TEST(ReportTelemetryFacts, TheServersGpusAndEachGpusDecodeFigures) {
  RunResult r;
  r.telemetry = TelemetryInfo{};
  r.telemetry->gpu_source = "nvml";
  for (int i = 0; i < 3; ++i) {
    TelemetryGpu g;
    g.index = i;
    g.name = "NVIDIA H100 80GB HBM3";
    g.power_limit_w = i == 0 ? 350.0 : 700.0;  // GPU 0 is not the server's: its limit is not shown
    r.telemetry->gpus.push_back(g);
  }
  r.telemetry->server_gpus = {1, 2};
  r.telemetry->server_gpus_source = "process_list";
  r.telemetry->server_gpus_detail = "the driver lists the server's process 4242 on GPUs 1,2";
  DecodeCell c;
  c.context = 1024;
  c.concurrency = 8;
  c.total_tok_s = 900;
  for (int i : {1, 2}) {
    GpuWindowFigures f;
    f.index = i;
    f.power_w = i == 1 ? 410.0 : 395.0;
    f.temp_max_c = i == 1 ? 71.0 : 88.0;
    f.throttle = i == 1 ? "ok" : "thermal";
    c.telemetry.per_gpu.push_back(f);
  }
  r.decode.push_back(c);
  std::vector<FactGroup> groups;
  add_telemetry_facts(groups, r);
  std::map<std::string, std::string> facts;
  for (const auto& g : groups)
    for (const auto& f : g.facts) facts[f.label] = f.value;
  EXPECT_EQ(facts["Server's GPUs"], "GPUs 1, 2 of 3 (the driver lists the server's process 4242 on GPUs 1,2)");
  EXPECT_EQ(facts["Power limit"], "700 W each");
  EXPECT_EQ(facts["Per-GPU decode"], "GPU 1: 410 W, 71 °C max; GPU 2: 395 W, 88 °C max, Thermal");
}

}  // namespace
}  // namespace sm::report
