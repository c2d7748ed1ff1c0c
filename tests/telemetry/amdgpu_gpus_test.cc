// AMD GPU telemetry from amdgpu's sysfs files (tests/fixtures/amdgpu), and a run opening it
// where NVML cannot open.
#include "telemetry/amdgpu_gpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/temp_dir.h"
#include "telemetry/telemetry_sources_open.h"

namespace sm {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path amdgpu_fixture(const std::string& name) {
  return fs::path(SPEEDMATRIX_SOURCE_DIR) / "tests/fixtures/amdgpu" / name;
}

GpuReading read_only_gpu(GpuSource& source) {
  std::vector<GpuReading> out;
  source.read(out);
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? GpuReading{} : out[0];
}

TEST(AmdgpuGpus, ReadsAnInstinctWithItsEnergyCounter) {
  auto gpus = AmdgpuGpus::open(amdgpu_fixture("mi300x"));
  ASSERT_TRUE(gpus) << gpus.error().describe();
  EXPECT_EQ((*gpus)->source_name(), "amdgpu-sysfs");
  const auto info = (*gpus)->static_info();
  ASSERT_EQ(info.size(), 1u);
  EXPECT_EQ(info[0].index, 0);
  EXPECT_EQ(info[0].name, "AMD Instinct MI300X");
  EXPECT_EQ(info[0].uuid, "");
  EXPECT_EQ(info[0].mem_total_bytes, 206158430208);
  EXPECT_EQ(info[0].sm_clock_max_mhz, 2100);
  EXPECT_EQ(info[0].mem_clock_max_mhz, 1300);
  EXPECT_EQ(info[0].pcie_gen_max, 5);
  EXPECT_EQ(info[0].pcie_width_max, 16);

  const GpuReading r = read_only_gpu(**gpus);
  EXPECT_EQ(r.power_w, 652);          // power1_input: this card has no power1_average
  EXPECT_EQ(r.energy_j, 123456789);   // energy1_input, µJ
  EXPECT_EQ(r.power_limit_w, 750);
  EXPECT_EQ(r.temp_c, 65);            // no edge sensor: the junction's
  EXPECT_EQ(r.sm_clock_mhz, 1434);
  EXPECT_EQ(r.mem_clock_mhz, 1300);
  EXPECT_EQ(r.util_pct, 87);
  EXPECT_EQ(r.mem_util_pct, 40);
  EXPECT_EQ(r.mem_used_bytes, 150000000000);
  EXPECT_EQ(r.pcie_gen, 5);
  EXPECT_EQ(r.pcie_width, 16);
  EXPECT_FALSE(r.pstate);               // amdgpu has no P-states ...
  EXPECT_FALSE(r.clocks_event_reasons);  // ... nor throttle reasons in sysfs
}

TEST(AmdgpuGpus, ReadsARadeonWithoutAnEnergyCounter) {
  auto gpus = AmdgpuGpus::open(amdgpu_fixture("rx7900xtx"));
  ASSERT_TRUE(gpus) << gpus.error().describe();
  ASSERT_EQ((*gpus)->static_info().size(), 1u);  // the integrated GPU is left out
  const GpuReading r = read_only_gpu(**gpus);
  EXPECT_EQ(r.power_w, 285);  // power1_average
  EXPECT_FALSE(r.energy_j);   // the window's energy is then ∫ power dt
  EXPECT_EQ(r.temp_c, 58);    // edge
  EXPECT_EQ(r.sm_clock_mhz, 2482);
  EXPECT_EQ(r.mem_clock_mhz, 1249);
  EXPECT_EQ(r.util_pct, 99);
  EXPECT_EQ(r.pcie_gen, 4);  // pp_dpm_pcie's current level, not the internal switch's 2.5 GT/s
  EXPECT_EQ(r.pcie_width, 16);
}

TEST(AmdgpuGpus, ReadsAnApu) {
  auto gpus = AmdgpuGpus::open(amdgpu_fixture("apu"));
  ASSERT_TRUE(gpus) << gpus.error().describe();
  const GpuReading r = read_only_gpu(**gpus);
  EXPECT_EQ(r.power_w, 45);  // the SoC's, CPU cores included (docs/METRICS.md)
  EXPECT_FALSE(r.power_limit_w);
  EXPECT_FALSE(r.mem_clock_mhz);
  EXPECT_EQ(r.sm_clock_mhz, 2900);
}

TEST(AmdgpuGpus, AFileGoneLeavesItsFieldEmpty) {
  test::TempDir dir;
  fs::copy(amdgpu_fixture("rx7900xtx"), dir.path(), fs::copy_options::recursive);
  auto gpus = AmdgpuGpus::open(dir.path());
  ASSERT_TRUE(gpus);
  fs::remove(dir.path() / "sys/class/drm/card0/device/gpu_busy_percent");
  fs::remove(dir.path() / "sys/class/drm/card0/device/hwmon/hwmon2/power1_average");
  const GpuReading r = read_only_gpu(**gpus);
  EXPECT_FALSE(r.util_pct);
  EXPECT_FALSE(r.power_w);
  EXPECT_EQ(r.temp_c, 58);
}

TEST(AmdgpuGpus, NoCardIsAnError) {
  auto none = AmdgpuGpus::open(amdgpu_fixture("bmc-only"));
  ASSERT_FALSE(none);
  EXPECT_THAT(none.error().message, HasSubstr("no amdgpu card"));
}

// A run's GPU source: NVML first; where it cannot open, amdgpu's files; neither: NVML's reason.
TEST(AmdgpuGpus, ARunFallsBackToAmdgpuWhenNvmlCannotOpen) {
  test::TempDir dir;
  const std::string no_nvml = dir.file("libnvidia-ml.so.1");
  auto amd = open_gpu_source(no_nvml, amdgpu_fixture("mi300x"));
  ASSERT_TRUE(amd) << amd.error().describe();
  EXPECT_EQ((*amd)->source_name(), "amdgpu-sysfs");
  EXPECT_EQ((*amd)->static_info().at(0).name, "AMD Instinct MI300X");
  auto none = open_gpu_source(no_nvml, dir.path());
  ASSERT_FALSE(none);
  EXPECT_THAT(none.error().message, HasSubstr("cannot load NVML library"));
}

}  // namespace
}  // namespace sm
