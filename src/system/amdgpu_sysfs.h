#pragma once
// AMD GPUs as the amdgpu kernel driver exposes them in sysfs: the same files rocm-smi and
// amd-smi read, so no ROCm library is needed. `root` is "/" in a run and a fixture tree in tests
// (tests/fixtures/amdgpu/). What each file holds, and its unit, is from the kernel's
// Documentation/gpu/amdgpu (the kernel-doc of drivers/gpu/drm/amd/pm/amdgpu_pm.c and
// amdgpu_vram_mgr.c), quoted next to each field below.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sm {

/// One amdgpu card, found once: ROOT/sys/class/drm/cardN whose device's uevent says
/// DRIVER=amdgpu.
struct AmdgpuCard {
  int card = 0;                      ///< N of /sys/class/drm/cardN (the driver's probe order)
  std::filesystem::path device;      ///< ROOT/sys/class/drm/cardN/device (the PCI device)
  std::filesystem::path hwmon;       ///< device/hwmon/hwmonM (temperatures, power); empty when none
  uint32_t device_id = 0;            ///< PCI device id, from uevent PCI_ID=1002:74A1
  std::string pci_slot;              ///< uevent PCI_SLOT_NAME, e.g. "0000:03:00.0"
  std::string product_name;          ///< device/product_name (boards with a FRU EEPROM); "" when absent
  /// An APU's integrated GPU: device/apu reads 1 where the kernel has that file, else the hwmon
  /// has in1_input, the northbridge voltage, which amdgpu_pm.c shows on APUs only ("only APUs
  /// have vddnb"). Its power is the whole SoC's, CPU cores included.
  bool integrated = false;
  std::string name;                  ///< amd_gpu_name(): table, product_name or "AMD GPU (device 0x….)"
};

/// The amdgpu cards under `root`, in card order. Where a machine has discrete cards, its
/// integrated one (a Ryzen's iGPU beside a Radeon) is left out: its power is the SoC's and the
/// server rarely runs on it. Empty where there is no amdgpu card.
std::vector<AmdgpuCard> find_amdgpu_cards(const std::filesystem::path& root);

/// One clock domain's DPM levels (pp_dpm_sclk, pp_dpm_mclk: lines "1: 800Mhz *", the current
/// level marked with '*').
struct DpmClocks {
  std::optional<double> current_mhz;  ///< the level marked '*'; empty when none is marked
  std::optional<double> max_mhz;      ///< the highest level
};
DpmClocks parse_dpm_clocks(std::string_view pp_dpm_text);

/// A PCIe link: generation and lanes.
struct PcieLink {
  std::optional<int> gen;    ///< 1 (2.5 GT/s) ... 6 (64 GT/s)
  std::optional<int> width;  ///< lanes
};
/// The generation of a link speed as the PCI core writes it ("16.0 GT/s PCIe", "8 GT/s",
/// "2.5 GT/s"); std::nullopt for anything else ("Unknown").
std::optional<int> pcie_gen_of_speed(std::string_view speed);
/// pp_dpm_pcie ("0: 2.5GT/s, x1 310Mhz\n1: 16.0GT/s, x16 619Mhz *"): the current ('*') and the
/// highest level.
struct DpmPcie {
  PcieLink current;
  PcieLink max;
};
DpmPcie parse_dpm_pcie(std::string_view pp_dpm_pcie_text);

/// The card's PCIe link now and at most: pp_dpm_pcie where the driver writes it (the link to
/// the board; the PCI core's files of a Navi card describe the link to its internal switch),
/// else the device's current_link_speed/width and max_link_speed/width.
DpmPcie read_amdgpu_pcie(const AmdgpuCard& card);

/// Total VRAM in bytes (mem_info_vram_total: "the total amount of VRAM in bytes"; on an APU the
/// memory carved out of system RAM for it).
std::optional<int64_t> read_amdgpu_vram_total(const AmdgpuCard& card);
/// The enforced power cap in watts (hwmon power1_cap: "selected power cap in microWatts").
std::optional<double> read_amdgpu_power_cap_w(const AmdgpuCard& card);
/// The amdgpu module's version (ROOT/sys/module/amdgpu/version, written by AMD's DKMS builds of
/// the driver; the kernel's own build has none): "" when absent.
std::string read_amdgpu_driver_version(const std::filesystem::path& root);

}  // namespace sm
