#include "telemetry/nvml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/fake_nvml/fake_nvml.h"
#include "support/fake_nvml/fake_nvml_control.h"
#include "support/temp_dir.h"
#include "telemetry/telemetry_sources_open.h"

namespace sm {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

/// A GPU that answers every function, each field a different value (a swapped field shows).
json full_gpu() {
  return {
      {"name", "NVIDIA GeForce RTX 3090"},
      {"mem_total_bytes", 25769803776LL},
      {"mem_used_bytes", 1073741824LL},
      {"sm_clock_mhz", 1695},
      {"mem_clock_mhz", 9751},
      {"sm_clock_max_mhz", 2100},
      {"mem_clock_max_mhz", 9752},
      {"temp_c", 65},
      {"util_pct", 97},
      {"mem_util_pct", 40},
      {"pstate", 2},
      {"pcie_gen", 3},
      {"pcie_width", 8},
      {"pcie_gen_max", 4},
      {"pcie_width_max", 16},
      {"power_limit_w", 350},
      {"power_w", 301.5},
      {"energy_start_j", 5000},
      {"clocks_event_reasons", 4},
  };
}

json script_with(std::vector<json> gpus, double now_s = 10) {
  return {{"now_s", now_s}, {"gpus", std::move(gpus)}};
}

class NvmlTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(fake.loaded()) << fake.load_error(); }

  void script(const json& s) { ASSERT_TRUE(fake.set_script(s.dump())) << fake.last_error(); }

  std::unique_ptr<NvmlGpus> open_fake() {
    auto gpus = NvmlGpus::open(FAKE_NVML_PATH);
    EXPECT_TRUE(gpus.has_value()) << gpus.error().describe();
    return gpus ? std::move(*gpus) : nullptr;
  }

  static GpuReading read_one(GpuSource& gpus) {
    std::vector<GpuReading> out;
    gpus.read(out);
    EXPECT_EQ(out.size(), 1u);
    return out.empty() ? GpuReading{} : out[0];
  }

  test::FakeNvmlControl fake{FAKE_NVML_PATH};
};

TEST_F(NvmlTest, ReadsEveryFieldFromTheLibrary) {
  script(script_with({full_gpu()}, 10));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  EXPECT_EQ(gpus->device_count(), 1);
  EXPECT_EQ(gpus->library(), FAKE_NVML_PATH);
  EXPECT_TRUE(gpus->notes().empty()) << gpus->notes().front();

  ASSERT_EQ(gpus->static_info().size(), 1u);
  const GpuStaticInfo info = gpus->static_info()[0];
  EXPECT_EQ(info.index, 0);
  EXPECT_EQ(info.name, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(info.sm_clock_max_mhz, 2100);
  EXPECT_EQ(info.mem_clock_max_mhz, 9752);
  EXPECT_EQ(info.mem_total_bytes, 25769803776LL);
  EXPECT_EQ(info.pcie_gen_max, 4);
  EXPECT_EQ(info.pcie_width_max, 16);

  const GpuReading r = read_one(*gpus);
  EXPECT_EQ(r.index, 0);
  EXPECT_EQ(r.power_w, 301.5);               // 301500 mW
  EXPECT_EQ(r.energy_j, 5000 + 301.5 * 10);  // counter start + power × 10 s
  EXPECT_EQ(r.sm_clock_mhz, 1695);
  EXPECT_EQ(r.mem_clock_mhz, 9751);
  EXPECT_EQ(r.temp_c, 65);
  EXPECT_EQ(r.util_pct, 97);
  EXPECT_EQ(r.mem_util_pct, 40);
  EXPECT_EQ(r.mem_used_bytes, 1073741824LL);
  EXPECT_EQ(r.pstate, 2);
  EXPECT_EQ(r.clocks_event_reasons, clocks_event::kSwPowerCap);
  EXPECT_EQ(r.pcie_gen, 3);
  EXPECT_EQ(r.pcie_width, 8);
  EXPECT_EQ(r.power_limit_w, 350);
}

TEST_F(NvmlTest, IsTheRecordersGpuSource) {
  json second = full_gpu();
  second["name"] = "NVIDIA RTX A6000";
  script(script_with({full_gpu(), second}));
  Result<std::unique_ptr<GpuSource>> source = NvmlGpus::open(FAKE_NVML_PATH);
  ASSERT_TRUE(source) << source.error().describe();
  const std::vector<GpuStaticInfo> info = (*source)->static_info();
  ASSERT_EQ(info.size(), 2u);
  EXPECT_EQ(info[1].name, "NVIDIA RTX A6000");
  std::vector<GpuReading> out;
  (*source)->read(out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].power_w, 301.5);
}

TEST_F(NvmlTest, ARunOpensItsGpusThroughNvml) {
  script(script_with({full_gpu()}));
  test::TempDir dir;  // also the /sys root: no AMD GPU of this machine may answer
  auto source = open_gpu_source(FAKE_NVML_PATH, dir.path());
  ASSERT_TRUE(source) << source.error().describe();
  EXPECT_EQ((*source)->source_name(), "nvml");
  EXPECT_EQ(read_one(**source).sm_clock_mhz, 1695);
  auto absent = open_gpu_source(dir.file("libnvidia-ml.so.1"), dir.path());
  ASSERT_FALSE(absent);
  EXPECT_THAT(absent.error().message, HasSubstr("cannot load NVML library"));
}

TEST_F(NvmlTest, PrefersTheNewerEntryPoints) {
  script(script_with({full_gpu()}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  read_one(*gpus);
  EXPECT_EQ(fake.calls("nvmlInit_v2"), 1);
  EXPECT_EQ(fake.calls("nvmlInit"), 0);
  EXPECT_EQ(fake.calls("nvmlDeviceGetCount_v2"), 1);
  EXPECT_EQ(fake.calls("nvmlDeviceGetCount"), 0);
  EXPECT_EQ(fake.calls("nvmlDeviceGetHandleByIndex_v2"), 1);
  EXPECT_EQ(fake.calls("nvmlDeviceGetHandleByIndex"), 0);
  EXPECT_EQ(fake.calls("nvmlDeviceGetCurrentClocksEventReasons"), 1);
  EXPECT_EQ(fake.calls("nvmlDeviceGetCurrentClocksThrottleReasons"), 0);
}

TEST_F(NvmlTest, ReadsEachOfTwoGpus) {
  json second = full_gpu();
  second["name"] = "NVIDIA RTX A6000";
  second["power_w"] = 120.25;
  second["temp_c"] = 44;
  second["sm_clock_max_mhz"] = 2000;
  second["clocks_event_reasons"] = clocks_event::kGpuIdle;
  script(script_with({full_gpu(), second}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  EXPECT_EQ(gpus->device_count(), 2);
  ASSERT_EQ(gpus->static_info().size(), 2u);
  EXPECT_EQ(gpus->static_info()[0].name, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(gpus->static_info()[1].name, "NVIDIA RTX A6000");
  EXPECT_EQ(gpus->static_info()[1].index, 1);
  EXPECT_EQ(gpus->static_info()[0].sm_clock_max_mhz, 2100);
  EXPECT_EQ(gpus->static_info()[1].sm_clock_max_mhz, 2000);

  std::vector<GpuReading> out;
  gpus->read(out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].index, 0);
  EXPECT_EQ(out[1].index, 1);
  EXPECT_EQ(out[0].power_w, 301.5);
  EXPECT_EQ(out[1].power_w, 120.25);
  EXPECT_EQ(out[1].energy_j, 5000 + 120.25 * 10);
  EXPECT_EQ(out[0].temp_c, 65);
  EXPECT_EQ(out[1].temp_c, 44);
  EXPECT_EQ(out[0].clocks_event_reasons, clocks_event::kSwPowerCap);
  EXPECT_EQ(out[1].clocks_event_reasons, clocks_event::kGpuIdle);
}

// Which processes run on which GPU (compute and graphics contexts), and each GPU's UUID: how
// the server's GPUs are found on a machine with several (issue 31).
TEST_F(NvmlTest, ListsEachGpusProcessesAndUuid) {
  json a = full_gpu(), b = full_gpu(), c = full_gpu();
  a["uuid"] = "GPU-aaaa";
  b["uuid"] = "GPU-bbbb";
  a["processes"] = json::array();
  b["processes"] = {4242};
  b["graphics_processes"] = {4243};
  std::vector<int> many;
  for (int pid = 1000; pid < 1100; ++pid) many.push_back(pid);  // more than a first guess of 64
  c["processes"] = many;
  script(script_with({a, b, c}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  EXPECT_EQ(gpus->static_info()[0].uuid, "GPU-aaaa");
  EXPECT_EQ(gpus->static_info()[1].uuid, "GPU-bbbb");
  EXPECT_EQ(gpus->static_info()[2].uuid, "");  // NOT_SUPPORTED: empty
  auto processes = gpus->processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 3u);
  EXPECT_EQ((*processes)[1].index, 1);
  EXPECT_TRUE((*processes)[0].pids.empty());
  EXPECT_THAT((*processes)[1].pids, ::testing::ElementsAre(4242, 4243));
  EXPECT_EQ((*processes)[2].pids, many);
  EXPECT_GE(fake.calls("nvmlDeviceGetComputeRunningProcesses_v3"), 3);
  EXPECT_EQ(fake.calls("nvmlDeviceGetComputeRunningProcesses"), 0);  // the newer entry point is preferred
}

TEST_F(NvmlTest, NoProcessListWhenNoGpuAnswersIt) {
  script(script_with({full_gpu()}));  // no "processes": NOT_SUPPORTED
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  EXPECT_FALSE(gpus->processes());
}

TEST_F(NvmlTest, ReadReusesItsHandlesAndTheCallersVector) {
  script(script_with({full_gpu()}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  // A vector from elsewhere: too long, with a stale field the script does not have.
  std::vector<GpuReading> out(3);
  out[0].index = 7;
  out[0].temp_c = 99;
  json no_temp = full_gpu();
  no_temp.erase("temp_c");
  script(script_with({no_temp}));
  fake.reset_calls();

  gpus->read(out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].index, 0);
  EXPECT_FALSE(out[0].temp_c.has_value());
  const GpuReading* slot = out.data();
  gpus->read(out);
  EXPECT_EQ(out.data(), slot);  // no reallocation
  EXPECT_EQ(fake.calls("nvmlDeviceGetHandleByIndex_v2"), 0);
  EXPECT_EQ(fake.calls("nvmlDeviceGetCount_v2"), 0);
  EXPECT_EQ(fake.calls("nvmlDeviceGetName"), 0);
  EXPECT_EQ(fake.calls("nvmlDeviceGetPowerUsage"), 2);
}

TEST_F(NvmlTest, NotSupportedLeavesOnlyThatFieldEmpty) {
  json gpu = full_gpu();
  gpu["not_supported"] = {"nvmlDeviceGetPowerUsage", "nvmlDeviceGetTemperature",
                          "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetMaxClockInfo"};
  script(script_with({gpu}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  EXPECT_TRUE(gpus->notes().empty());  // the functions exist; they answer NOT_SUPPORTED
  EXPECT_FALSE(gpus->static_info()[0].sm_clock_max_mhz.has_value());
  EXPECT_FALSE(gpus->static_info()[0].mem_clock_max_mhz.has_value());
  EXPECT_EQ(gpus->static_info()[0].mem_total_bytes, 25769803776LL);
  const GpuReading r = read_one(*gpus);
  EXPECT_FALSE(r.power_w.has_value());
  EXPECT_FALSE(r.temp_c.has_value());
  EXPECT_FALSE(r.clocks_event_reasons.has_value());
  EXPECT_EQ(r.energy_j, 5000 + 301.5 * 10);  // its own function still answers
  EXPECT_EQ(r.sm_clock_mhz, 1695);
  EXPECT_EQ(r.power_limit_w, 350);
  EXPECT_EQ(r.pcie_gen, 3);
}

TEST_F(NvmlTest, AnyErrorAnswerLeavesTheFieldEmpty) {
  json gpu = full_gpu();
  gpu["errors"] = {{"nvmlDeviceGetUtilizationRates", 15},   // GPU is lost
                   {"nvmlDeviceGetEnforcedPowerLimit", 4},  // no permission
                   {"nvmlDeviceGetMemoryInfo", 999}};       // unknown
  script(script_with({gpu}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  EXPECT_FALSE(gpus->static_info()[0].mem_total_bytes.has_value());
  const GpuReading r = read_one(*gpus);
  EXPECT_FALSE(r.util_pct.has_value());
  EXPECT_FALSE(r.mem_util_pct.has_value());
  EXPECT_FALSE(r.power_limit_w.has_value());
  EXPECT_FALSE(r.mem_used_bytes.has_value());
  EXPECT_EQ(r.power_w, 301.5);
  EXPECT_EQ(r.pstate, 2);
}

TEST_F(NvmlTest, AGpuThatSaysNothingGivesAnEmptyReading) {
  script(script_with({json::object()}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  EXPECT_EQ(gpus->static_info()[0].name, "");
  const GpuReading r = read_one(*gpus);
  EXPECT_EQ(r.index, 0);
  EXPECT_FALSE(r.power_w || r.energy_j || r.sm_clock_mhz || r.mem_clock_mhz || r.temp_c ||
               r.util_pct || r.mem_util_pct || r.mem_used_bytes || r.pstate ||
               r.clocks_event_reasons || r.pcie_gen || r.pcie_width || r.power_limit_w);
}

TEST_F(NvmlTest, UnknownPstateIsEmpty) {
  json gpu = full_gpu();
  gpu["pstate"] = 32;  // NVML_PSTATE_UNKNOWN
  script(script_with({gpu}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  EXPECT_FALSE(read_one(*gpus).pstate.has_value());
}

TEST_F(NvmlTest, RampingPowerAndItsEnergyCounterFollowTheScript) {
  json gpu = full_gpu();
  gpu["power_w"] = {{"from", 100}, {"to", 300}, {"over_s", 10}};
  gpu["energy_start_j"] = 1000;
  script(script_with({gpu}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  // P(t) = 100 + 20 t up to 10 s, then 300; E(t) = 1000 + 100 t + 10 t² up to 10 s, then
  // 3000 + 300 (t − 10).
  struct Point {
    double t_s, power_w, energy_j;
  };
  for (const Point& p :
       {Point{0, 100, 1000}, Point{2.5, 150, 1312.5}, Point{10, 300, 3000}, Point{14, 300, 4200}}) {
    fake.set_now_s(p.t_s);
    const GpuReading r = read_one(*gpus);
    EXPECT_NEAR(r.power_w.value_or(-1), p.power_w, 1e-3) << "t = " << p.t_s;
    EXPECT_NEAR(r.energy_j.value_or(-1), p.energy_j, 1e-3) << "t = " << p.t_s;
  }
  // A window's energy is the counter's difference, which equals mean power × time.
  fake.set_now_s(2);
  const GpuReading a = read_one(*gpus);
  fake.set_now_s(6);
  const GpuReading b = read_one(*gpus);
  EXPECT_NEAR(*b.energy_j - *a.energy_j, (*a.power_w + *b.power_w) / 2 * 4, 1e-3);
}

TEST_F(NvmlTest, ClocksEventBitsFollowTheirSchedule) {
  json gpu = full_gpu();
  gpu["clocks_event_reasons"] = json::array(
      {{{"from_s", 5}, {"bits", clocks_event::kSwPowerCap}},
       {{"from_s", 0}, {"bits", 0}},
       {{"from_s", 8}, {"bits", clocks_event::kHwSlowdown | clocks_event::kHwThermalSlowdown}}});
  script(script_with({gpu}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  fake.set_now_s(1);
  EXPECT_EQ(read_one(*gpus).clocks_event_reasons, 0u);
  fake.set_now_s(5);
  EXPECT_EQ(read_one(*gpus).clocks_event_reasons, clocks_event::kSwPowerCap);
  fake.set_now_s(9);
  EXPECT_EQ(read_one(*gpus).clocks_event_reasons,
            clocks_event::kHwSlowdown | clocks_event::kHwThermalSlowdown);
}

TEST_F(NvmlTest, AGpuWhoseHandleIsRefusedIsLeftOutAndSaidSo) {
  json refused = full_gpu();
  refused["errors"] = {{"nvmlDeviceGetHandleByIndex", 4}};
  script(script_with({refused, full_gpu()}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  EXPECT_EQ(gpus->device_count(), 1);
  EXPECT_EQ(gpus->static_info()[0].index, 1);
  EXPECT_EQ(read_one(*gpus).index, 1);
  ASSERT_EQ(gpus->notes().size(), 1u);
  EXPECT_THAT(gpus->notes()[0], HasSubstr("GPU 0 not read"));
  EXPECT_THAT(gpus->notes()[0], HasSubstr("Insufficient Permissions"));
}

TEST_F(NvmlTest, NoGpuThatCanBeOpenedIsAnError) {
  json refused = full_gpu();
  refused["errors"] = {{"nvmlDeviceGetHandleByIndex", 4}};
  script(script_with({refused}));
  auto gpus = NvmlGpus::open(FAKE_NVML_PATH);
  ASSERT_FALSE(gpus);
  EXPECT_THAT(gpus.error().message, HasSubstr("could open none of its 1 GPU(s)"));
  EXPECT_THAT(gpus.error().message, HasSubstr("Insufficient Permissions"));
}

TEST_F(NvmlTest, NoGpuIsAnError) {
  script(script_with({}));
  auto gpus = NvmlGpus::open(FAKE_NVML_PATH);
  ASSERT_FALSE(gpus);
  EXPECT_EQ(gpus.error().code, ErrorCode::Unsupported);
  EXPECT_THAT(gpus.error().message, HasSubstr("found no GPU"));
  EXPECT_EQ(fake.calls("nvmlShutdown"), 1);  // initialised, so shut down again
}

TEST_F(NvmlTest, InitFailureGivesNvmlsOwnWords) {
  script({{"init_error", 9}, {"gpus", json::array({full_gpu()})}});
  auto gpus = NvmlGpus::open(FAKE_NVML_PATH);
  ASSERT_FALSE(gpus);
  EXPECT_EQ(gpus.error().code, ErrorCode::Unsupported);
  EXPECT_THAT(gpus.error().message, HasSubstr("nvmlInit_v2 failed"));
  EXPECT_THAT(gpus.error().message, HasSubstr("Driver Not Loaded (NVML error 9)"));
  EXPECT_THAT(gpus.error().message, HasSubstr(FAKE_NVML_PATH));
  EXPECT_EQ(fake.calls("nvmlShutdown"), 0);  // never initialised
}

TEST_F(NvmlTest, DeviceCountFailureIsAnError) {
  script({{"errors", {{"nvmlDeviceGetCount", 999}}}, {"gpus", json::array({full_gpu()})}});
  auto gpus = NvmlGpus::open(FAKE_NVML_PATH);
  ASSERT_FALSE(gpus);
  EXPECT_THAT(gpus.error().message, HasSubstr("nvmlDeviceGetCount_v2 failed"));
  EXPECT_THAT(gpus.error().message, HasSubstr("Unknown Error (NVML error 999)"));
}

TEST_F(NvmlTest, ClosingShutsNvmlDown) {
  script(script_with({full_gpu()}));
  auto gpus = open_fake();
  ASSERT_TRUE(gpus);
  EXPECT_EQ(fake.calls("nvmlShutdown"), 0);
  gpus.reset();
  EXPECT_EQ(fake.calls("nvmlShutdown"), 1);
}

TEST_F(NvmlTest, AbsentLibraryNamesTheFile) {
  test::TempDir dir;
  const std::string path = dir.file("libnvidia-ml.so.1");
  auto gpus = NvmlGpus::open(path);
  ASSERT_FALSE(gpus);
  EXPECT_EQ(gpus.error().code, ErrorCode::InvalidArgument);  // the user named it
  EXPECT_THAT(gpus.error().message, HasSubstr("cannot load NVML library " + path));
}

TEST_F(NvmlTest, AFileThatIsNotALibraryNamesTheFile) {
  test::TempDir dir;
  const std::string path = dir.file("libnvidia-ml.so.1");
  std::ofstream(path) << "not an ELF file\n";
  auto gpus = NvmlGpus::open(path);
  ASSERT_FALSE(gpus);
  EXPECT_THAT(gpus.error().message, HasSubstr("cannot load NVML library " + path));
}

TEST_F(NvmlTest, ALibraryWithoutNvmlIsRefused) {
  auto gpus = NvmlGpus::open("libm.so.6");  // loads, but has no NVML
  ASSERT_FALSE(gpus);
  EXPECT_EQ(gpus.error().code, ErrorCode::Unsupported);
  EXPECT_THAT(gpus.error().message,
              HasSubstr("libm.so.6 is not an NVML library: it has no nvmlInit_v2 or nvmlInit"));
}

TEST_F(NvmlTest, ReadsTheScriptFileNamedByTheEnvironment) {
  test::TempDir dir;
  const std::string path = dir.file("gpus.json");
  json gpu = full_gpu();
  gpu["name"] = "NVIDIA H100 80GB HBM3";
  std::ofstream(path) << script_with({gpu}).dump();
  fake.clear_script();
  ASSERT_EQ(setenv(kFakeNvmlScriptEnv, path.c_str(), 1), 0);
  auto gpus = NvmlGpus::open(FAKE_NVML_PATH);
  unsetenv(kFakeNvmlScriptEnv);
  ASSERT_TRUE(gpus) << gpus.error().describe();
  EXPECT_EQ((*gpus)->static_info()[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(read_one(**gpus).power_w, 301.5);
}

TEST_F(NvmlTest, ABadScriptFileSaysWhyThroughNvmlErrorString) {
  test::TempDir dir;
  const std::string path = dir.file("gpus.json");
  std::ofstream(path) << R"({"gpus": [{"powr_w": 300}]})";
  fake.clear_script();
  ASSERT_EQ(setenv(kFakeNvmlScriptEnv, path.c_str(), 1), 0);
  auto gpus = NvmlGpus::open(FAKE_NVML_PATH);
  unsetenv(kFakeNvmlScriptEnv);
  ASSERT_FALSE(gpus);
  EXPECT_THAT(gpus.error().message, HasSubstr("unknown key \"powr_w\""));
  EXPECT_THAT(gpus.error().message, HasSubstr(path));
}

TEST_F(NvmlTest, NoScriptAtAllIsADriverNotLoaded) {
  fake.clear_script();
  unsetenv(kFakeNvmlScriptEnv);
  auto gpus = NvmlGpus::open(FAKE_NVML_PATH);
  ASSERT_FALSE(gpus);
  EXPECT_THAT(gpus.error().message, HasSubstr("Driver Not Loaded"));
  EXPECT_THAT(gpus.error().message, HasSubstr(kFakeNvmlScriptEnv));
}

TEST_F(NvmlTest, TheFakeRefusesAScriptItCannotRead) {
  EXPECT_FALSE(fake.set_script(R"({"gpus": [{"power_w": {"from": 1, "to": 2}}]})"));
  EXPECT_THAT(fake.last_error(), HasSubstr("from, to and over_s"));
  EXPECT_FALSE(fake.set_script("{"));
  EXPECT_FALSE(fake.set_script(R"({"gpus": [{"pstate": "P2"}]})"));
  EXPECT_THAT(fake.last_error(), HasSubstr("gpus[0].pstate"));
}

// An old driver's library: no _v2 entry points, no nvmlErrorString, no energy counter, only the
// throttle-reasons name, no PCIe link functions.
class NvmlOldLibraryTest : public NvmlTest {
 protected:
  void SetUp() override { ASSERT_TRUE(old.loaded()) << old.load_error(); }
  test::FakeNvmlControl old{FAKE_NVML_OLD_PATH};
};

TEST_F(NvmlOldLibraryTest, FallsBackToTheOlderNamesAndLeavesTheRestEmpty) {
  ASSERT_TRUE(old.set_script(script_with({full_gpu()}).dump())) << old.last_error();
  auto opened = NvmlGpus::open(FAKE_NVML_OLD_PATH);
  ASSERT_TRUE(opened) << opened.error().describe();
  NvmlGpus& gpus = **opened;
  EXPECT_EQ(old.calls("nvmlInit"), 1);
  EXPECT_EQ(old.calls("nvmlDeviceGetCount"), 1);
  EXPECT_EQ(old.calls("nvmlDeviceGetHandleByIndex"), 1);
  EXPECT_EQ(gpus.static_info()[0].name, "NVIDIA GeForce RTX 3090");
  EXPECT_FALSE(gpus.static_info()[0].pcie_gen_max.has_value());
  EXPECT_FALSE(gpus.static_info()[0].pcie_width_max.has_value());

  const GpuReading r = read_one(gpus);
  EXPECT_EQ(old.calls("nvmlDeviceGetCurrentClocksThrottleReasons"), 1);
  EXPECT_EQ(r.clocks_event_reasons, clocks_event::kSwPowerCap);
  EXPECT_FALSE(r.energy_j.has_value());
  EXPECT_FALSE(r.pcie_gen.has_value());
  EXPECT_FALSE(r.pcie_width.has_value());
  EXPECT_EQ(r.power_w, 301.5);
  EXPECT_EQ(r.sm_clock_mhz, 1695);

  std::string notes;
  for (const std::string& n : gpus.notes()) notes += n + "\n";
  EXPECT_THAT(notes, HasSubstr("has no nvmlDeviceGetTotalEnergyConsumption (no energy_j)"));
  EXPECT_THAT(notes, HasSubstr("has no nvmlDeviceGetCurrPcieLinkGeneration"));
  EXPECT_THAT(notes, HasSubstr("has no nvmlDeviceGetMaxPcieLinkWidth"));
  EXPECT_THAT(notes, ::testing::Not(HasSubstr("ClocksEventReasons")));  // the fallback was there
}

// The first process-list functions answer a shorter struct: each entry read at its own size.
TEST_F(NvmlOldLibraryTest, ListsProcessesThroughTheFirstVersionsStruct) {
  json a = full_gpu(), b = full_gpu();
  a["processes"] = {11, 12, 13};
  b["processes"] = json::array();
  b["graphics_processes"] = {21};
  ASSERT_TRUE(old.set_script(script_with({a, b}).dump())) << old.last_error();
  auto opened = NvmlGpus::open(FAKE_NVML_OLD_PATH);
  ASSERT_TRUE(opened);
  auto processes = (*opened)->processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 2u);
  EXPECT_THAT((*processes)[0].pids, ::testing::ElementsAre(11, 12, 13));
  EXPECT_THAT((*processes)[1].pids, ::testing::ElementsAre(21));
  EXPECT_EQ(old.calls("nvmlDeviceGetComputeRunningProcesses"), 2);
}

TEST_F(NvmlOldLibraryTest, InitFailureWithoutErrorStringGivesTheCode) {
  ASSERT_TRUE(
      old.set_script(json({{"init_error", 9}, {"gpus", json::array({full_gpu()})}}).dump()));
  auto gpus = NvmlGpus::open(FAKE_NVML_OLD_PATH);
  ASSERT_FALSE(gpus);
  EXPECT_THAT(gpus.error().message, HasSubstr("nvmlInit failed"));
  EXPECT_THAT(gpus.error().message, HasSubstr("NVML error 9"));
}

}  // namespace
}  // namespace sm
