// AMD GPUs from amdgpu's sysfs files, read from fixture trees (tests/fixtures/amdgpu): an
// MI300X-like card with an energy counter beside a BMC's VGA, a Radeon RX 7900 XTX beside its
// Ryzen's integrated GPU, a Strix Halo APU alone, and trees with no amdgpu card.
#include "system/amdgpu_sysfs.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"
#include "system/amdgpu_names.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

fs::path amdgpu_fixture(const std::string& name) {
  return fs::path(SPEEDMATRIX_SOURCE_DIR) / "tests/fixtures/amdgpu" / name;
}

TEST(AmdgpuSysfs, FindsTheAmdgpuCardsAndSkipsOtherDriversAndConnectors) {
  const auto cards = find_amdgpu_cards(amdgpu_fixture("mi300x"));
  ASSERT_EQ(cards.size(), 1u);  // card0 is the BMC's VGA (ast), card0-VGA-1 its connector
  const AmdgpuCard& c = cards[0];
  EXPECT_EQ(c.card, 1);
  EXPECT_EQ(c.device_id, 0x74a1u);
  EXPECT_EQ(c.pci_slot, "0000:05:00.0");
  EXPECT_EQ(c.product_name, "AMD Instinct MI300X OAM");
  EXPECT_EQ(c.name, "AMD Instinct MI300X");  // the table's name, the catalog's spelling
  EXPECT_FALSE(c.integrated);
  EXPECT_EQ(c.hwmon.filename(), "hwmon3");
  EXPECT_EQ(read_amdgpu_vram_total(c), 206158430208);
  EXPECT_EQ(read_amdgpu_power_cap_w(c), 750);
  EXPECT_EQ(read_amdgpu_driver_version(amdgpu_fixture("mi300x")), "6.8.5");
}

TEST(AmdgpuSysfs, LeavesTheIntegratedGpuOutBesideADiscreteOne) {
  const auto cards = find_amdgpu_cards(amdgpu_fixture("rx7900xtx"));
  ASSERT_EQ(cards.size(), 1u);  // card1, the Raphael iGPU (it has vddnb), is left out
  EXPECT_EQ(cards[0].card, 0);
  EXPECT_EQ(cards[0].name, "AMD Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M");
  EXPECT_FALSE(cards[0].integrated);
  EXPECT_EQ(read_amdgpu_driver_version(amdgpu_fixture("rx7900xtx")), "");  // the kernel's own amdgpu
}

TEST(AmdgpuSysfs, AnApuAloneIsKeptAndMarkedIntegrated) {
  const auto cards = find_amdgpu_cards(amdgpu_fixture("apu"));
  ASSERT_EQ(cards.size(), 1u);
  EXPECT_TRUE(cards[0].integrated);
  EXPECT_EQ(cards[0].name, "AMD Strix Halo (Radeon 8050S / 8060S Graphics)");
  EXPECT_FALSE(read_amdgpu_power_cap_w(cards[0]));  // APUs have no power1_cap
}

TEST(AmdgpuSysfs, TheApuFileWinsOverTheVddnbRule) {
  test::TempDir dir;
  fs::copy(amdgpu_fixture("apu"), dir.path(), fs::copy_options::recursive);
  const fs::path device = dir.path() / "sys/class/drm/card0/device";
  std::ofstream(device / "apu") << "0\n";
  ASSERT_EQ(find_amdgpu_cards(dir.path()).size(), 1u);
  EXPECT_FALSE(find_amdgpu_cards(dir.path())[0].integrated);
}

TEST(AmdgpuSysfs, NoCardWhereThereIsNoAmdgpu) {
  EXPECT_TRUE(find_amdgpu_cards(amdgpu_fixture("other")).empty());
  EXPECT_TRUE(find_amdgpu_cards(amdgpu_fixture("bmc-only")).empty());
  test::TempDir empty;
  EXPECT_TRUE(find_amdgpu_cards(empty.path()).empty());
}

TEST(AmdgpuSysfs, ParsesDpmClockLevels) {
  DpmClocks c = parse_dpm_clocks("0: 500Mhz \n1: 1434Mhz *\n2: 2100Mhz \n");
  EXPECT_EQ(c.current_mhz, 1434);
  EXPECT_EQ(c.max_mhz, 2100);
  // A deep-sleep level ("S:") counts as current; the max is the highest level, wherever it stands.
  c = parse_dpm_clocks("S: 19Mhz *\n0: 2900Mhz\n1: 600Mhz\n");
  EXPECT_EQ(c.current_mhz, 19);
  EXPECT_EQ(c.max_mhz, 2900);
  c = parse_dpm_clocks("0: 500Mhz\n1: 800Mhz\n");  // none marked
  EXPECT_FALSE(c.current_mhz);
  EXPECT_EQ(c.max_mhz, 800);
  EXPECT_FALSE(parse_dpm_clocks("").max_mhz);
}

TEST(AmdgpuSysfs, ParsesPcieSpeedsAndLevels) {
  EXPECT_EQ(pcie_gen_of_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_gen_of_speed("8 GT/s"), 3);
  EXPECT_EQ(pcie_gen_of_speed("2.5 GT/s PCIe"), 1);
  EXPECT_EQ(pcie_gen_of_speed("32.0 GT/s PCIe"), 5);
  EXPECT_FALSE(pcie_gen_of_speed("Unknown"));
  EXPECT_FALSE(pcie_gen_of_speed("16.0 MHz"));
  DpmPcie p = parse_dpm_pcie("0: 2.5GT/s, x1 97Mhz \n1: 16.0GT/s, x16 619Mhz *\n");
  EXPECT_EQ(p.current.gen, 4);
  EXPECT_EQ(p.current.width, 16);
  EXPECT_EQ(p.max.gen, 4);
  EXPECT_EQ(p.max.width, 16);
}

TEST(AmdgpuSysfs, PcieLinkPrefersTheDriversLevelsOverTheInternalSwitchLink) {
  // The RX 7900 XTX fixture's PCI core files say 2.5 GT/s (the link to its own switch).
  const auto xtx = find_amdgpu_cards(amdgpu_fixture("rx7900xtx"));
  ASSERT_EQ(xtx.size(), 1u);
  DpmPcie p = read_amdgpu_pcie(xtx[0]);
  EXPECT_EQ(p.current.gen, 4);
  EXPECT_EQ(p.max.gen, 4);
  EXPECT_EQ(p.max.width, 16);
  // Without pp_dpm_pcie, the PCI core's files.
  const auto mi = find_amdgpu_cards(amdgpu_fixture("mi300x"));
  ASSERT_EQ(mi.size(), 1u);
  p = read_amdgpu_pcie(mi[0]);
  EXPECT_EQ(p.current.gen, 5);
  EXPECT_EQ(p.current.width, 16);
  EXPECT_EQ(p.max.gen, 5);
}

TEST(AmdgpuNames, TableThenProductNameThenTheId) {
  EXPECT_EQ(amd_gpu_name(0x74a1, ""), "AMD Instinct MI300X");
  EXPECT_EQ(amd_gpu_name(0x740f, "whatever the FRU says"), "AMD Instinct MI210");
  EXPECT_EQ(amd_gpu_name(0x7448, ""), "AMD Radeon Pro W7900");
  EXPECT_EQ(amd_gpu_name(0x1234, "AMD Instinct MI999 OAM"), "AMD Instinct MI999 OAM");
  EXPECT_EQ(amd_gpu_name(0x1234, ""), "AMD GPU (device 0x1234)");
  EXPECT_TRUE(amd_gpu_table_name(0x1234).empty());
}

}  // namespace
}  // namespace sm
