// The run's telemetry set-up finds the server's GPUs (issue 31): through the driver's process
// list, a server on GPU 1 of three is recorded as GPU 1's, and the recorder counts GPU 1 only.
#include "bench/telemetry_setup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include "support/fake_nvml/fake_nvml_control.h"

namespace sm {
namespace {

std::string script_with_server_on_gpu_1(int server_pid) {
  auto gpu = [](double power_w, const std::string& processes) {
    return fmt::format(R"({{"name":"NVIDIA H100 80GB HBM3","util_pct":90,"mem_util_pct":30,"power_w":{},)"
                       R"("energy_start_j":0,"processes":[{}]}})",
                       power_w, processes);
  };
  return R"({"gpus":[)" + gpu(150, "77") + "," + gpu(200, std::to_string(server_pid)) + "," + gpu(50, "") + "]}";
}

TelemetrySetupOptions local_server() {
  TelemetrySetupOptions o;
  o.nvml_lib = FAKE_NVML_PATH;
  o.server_pids = {static_cast<int>(getpid())};  // this process plays the server
  o.transport = [](const HttpRequest&) -> Result<HttpResponse> {  // no server metrics to read
    return fail(ErrorCode::Unsupported, "no server in this test");
  };
  return o;
}

TEST(TelemetrySetup, FindsTheServersGpuInTheDriversProcessList) {
  test::FakeNvmlControl nvml(FAKE_NVML_PATH);
  ASSERT_TRUE(nvml.set_script(script_with_server_on_gpu_1(static_cast<int>(getpid())))) << nvml.last_error();
  SteadyClock clock;
  std::vector<std::string> notes;
  TelemetrySetup setup = start_telemetry(local_server(), clock, [&](const std::string& n) { notes.push_back(n); });
  ASSERT_TRUE(setup.refused.empty()) << setup.refused;
  EXPECT_TRUE(setup.gpu_figures);
  EXPECT_EQ(setup.info.gpus.size(), 3u);
  EXPECT_EQ(setup.info.server_gpus, std::vector<int>{1});
  EXPECT_EQ(setup.info.server_gpus_source, "process_list");
  EXPECT_NE(setup.info.server_gpus_detail.find(std::to_string(getpid())), std::string::npos);
  // The live figure (the progress line) is GPU 1's alone.
  auto live = setup.recorder->live();
  ASSERT_TRUE(live.gpu_power_w);
  EXPECT_NEAR(*live.gpu_power_w, 200, 1);
  setup.recorder->stop();
}

TEST(TelemetrySetup, ADeclarationWinsAndOneNamingNoGpuIsRefused) {
  test::FakeNvmlControl nvml(FAKE_NVML_PATH);
  ASSERT_TRUE(nvml.set_script(script_with_server_on_gpu_1(static_cast<int>(getpid())))) << nvml.last_error();
  SteadyClock clock;
  TelemetrySetupOptions o = local_server();
  o.declared_server_gpus = {"0", "2"};
  TelemetrySetup declared = start_telemetry(o, clock, [](const std::string&) {});
  EXPECT_EQ(declared.info.server_gpus, (std::vector<int>{0, 2}));
  EXPECT_EQ(declared.info.server_gpus_source, "declared");
  declared.recorder->stop();
  o.declared_server_gpus = {"5"};
  TelemetrySetup refused = start_telemetry(o, clock, [](const std::string&) {});
  EXPECT_NE(refused.refused.find("--server-gpus 5"), std::string::npos) << refused.refused;
  EXPECT_EQ(refused.recorder, nullptr);
}

// A server on another machine: the GPUs here are the client's; nothing is chosen.
TEST(TelemetrySetup, NoChoiceForARemoteServer) {
  test::FakeNvmlControl nvml(FAKE_NVML_PATH);
  ASSERT_TRUE(nvml.set_script(script_with_server_on_gpu_1(static_cast<int>(getpid())))) << nvml.last_error();
  SteadyClock clock;
  TelemetrySetupOptions o = local_server();
  o.remote_target = true;
  o.declared_server_gpus = {"1"};
  std::vector<std::string> notes;
  TelemetrySetup setup = start_telemetry(o, clock, [&](const std::string& n) { notes.push_back(n); });
  EXPECT_FALSE(setup.gpu_figures);
  EXPECT_TRUE(setup.info.server_gpus_source.empty());
  bool said = false;
  for (const auto& n : notes) said |= n.starts_with("--server-gpus is not used: the server runs on another machine");
  EXPECT_TRUE(said);
  setup.recorder->stop();
}

}  // namespace
}  // namespace sm
