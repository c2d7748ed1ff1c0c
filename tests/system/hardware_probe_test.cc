// The hardware probe's machine type and AMD GPUs from fixture /sys trees (tests/fixtures/amdgpu):
// before issue 31 point 3 every machine without nvidia-smi's GPUs was "CPU only".
#include "system/hardware_probe.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

fs::path amdgpu_fixture(const std::string& name) {
  return fs::path(SPEEDMATRIX_SOURCE_DIR) / "tests/fixtures/amdgpu" / name;
}

HardwareInfo probed(const std::string& fixture, std::vector<GpuInfo> nvidia = {}, const char* sysname = "Linux",
                    const char* machine = "x86_64") {
  HardwareInfo h;
  h.gpus = std::move(nvidia);
  add_accelerators(h, amdgpu_fixture(fixture), sysname, machine);
  return h;
}

TEST(HardwareProbe, NamesAnAmdDatacenterGpu) {
  HardwareInfo h = probed("mi300x");
  EXPECT_EQ(h.type, "Discrete GPU");
  ASSERT_EQ(h.gpus.size(), 1u);
  EXPECT_EQ(h.gpus[0].name, "AMD Instinct MI300X");
  EXPECT_EQ(h.gpus[0].vram_bytes, 206158430208);
  EXPECT_EQ(h.gpus[0].driver, "6.8.5");
  EXPECT_EQ(h.gpus[0].power_limit_w, 750);
  EXPECT_EQ(h.gpus[0].pcie, "Gen5 x16");
}

TEST(HardwareProbe, NamesARadeonAndLeavesItsCpusIntegratedGpuOut) {
  HardwareInfo h = probed("rx7900xtx");
  EXPECT_EQ(h.type, "Discrete GPU");
  ASSERT_EQ(h.gpus.size(), 1u);
  EXPECT_EQ(h.gpus[0].name, "AMD Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M");
  EXPECT_EQ(h.gpus[0].power_limit_w, 327);
  EXPECT_EQ(h.gpus[0].pcie, "Gen4 x16");
  EXPECT_EQ(h.gpus[0].driver, "");
}

TEST(HardwareProbe, AnApuIsAnIntegratedGpu) {
  HardwareInfo h = probed("apu");
  EXPECT_EQ(h.type, "Integrated GPU");
  ASSERT_EQ(h.gpus.size(), 1u);
  EXPECT_EQ(h.gpus[0].name, "AMD Strix Halo (Radeon 8050S / 8060S Graphics)");
  EXPECT_EQ(h.gpus[0].vram_bytes, 68719476736);
  EXPECT_FALSE(h.gpus[0].power_limit_w);
}

TEST(HardwareProbe, NvidiaAndAmdTogetherAreDiscrete) {
  GpuInfo nvidia;
  nvidia.name = "NVIDIA GeForce RTX 3090";
  HardwareInfo h = probed("apu", {nvidia});
  EXPECT_EQ(h.type, "Discrete GPU");
  ASSERT_EQ(h.gpus.size(), 2u);
  EXPECT_EQ(h.gpus[0].name, "NVIDIA GeForce RTX 3090");
}

TEST(HardwareProbe, AppleSiliconIsNotCpuOnly) {
  EXPECT_EQ(probed("apple").type, "Apple silicon");  // Asahi Linux: the device tree says apple,…
  test::TempDir empty;
  HardwareInfo mac;
  add_accelerators(mac, empty.path(), "Darwin", "arm64");
  EXPECT_EQ(mac.type, "Apple silicon");
  EXPECT_TRUE(mac.gpus.empty());
}

TEST(HardwareProbe, OtherAcceleratorsAreNamedByTheirDriver) {
  // A Gaudi in the accel class and an Intel GPU (i915) beside the BMC's VGA (ast, not counted).
  EXPECT_EQ(probed("other").type, "Other accelerator (driver habanalabs, i915)");
}

TEST(HardwareProbe, ABmcDisplayOrNothingIsCpuOnly) {
  EXPECT_EQ(probed("bmc-only").type, "CPU only");
  test::TempDir empty;
  HardwareInfo h;
  add_accelerators(h, empty.path(), "Linux", "x86_64");
  EXPECT_EQ(h.type, "CPU only");
  GpuInfo nvidia;
  nvidia.name = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(probed("bmc-only", {nvidia}).type, "Discrete GPU");
}

}  // namespace
}  // namespace sm
