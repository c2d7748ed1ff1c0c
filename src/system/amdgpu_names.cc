#include "system/amdgpu_names.h"

#include <fmt/format.h>

#include <array>

namespace sm {

namespace {

struct AmdGpuName {
  uint32_t device_id;    ///< PCI device id (vendor 0x1002)
  std::string_view name; ///< as recorded; the pci.ids bracket text with "AMD " in front
};

// Source of every row: pci.ids from the PCI ID Repository (https://pci-ids.ucw.cz/), version
// 2026.08.22 (github.com/pciutils/pciids, commit c1c12547d626), vendor 1002 "Advanced Micro
// Devices, Inc. [AMD/ATI]"; the comment after each row is that file's line. The Linux kernel's
// amdgpu_drv.c pciidlist names no product (and since Navi matches every 1002 display device
// through IP discovery), so it cannot serve here.
constexpr std::array kAmdGpuNames{
    // Instinct (datacenter)
    AmdGpuName{0x738c, "AMD Instinct MI100"},          // Arcturus GL-XL [Instinct MI100]
    AmdGpuName{0x738e, "AMD Instinct MI100"},          // Arcturus GL-XL [Instinct MI100]
    AmdGpuName{0x7408, "AMD Instinct MI250X"},         // Aldebaran/MI200 [Instinct MI250X]
    AmdGpuName{0x740c, "AMD Instinct MI250X/MI250"},   // Aldebaran/MI200 [Instinct MI250X/MI250]
    AmdGpuName{0x740f, "AMD Instinct MI210"},          // Aldebaran/MI200 [Instinct MI210]
    AmdGpuName{0x74a0, "AMD Instinct MI300A"},         // Aqua Vanjaram [Instinct MI300A]
    AmdGpuName{0x74a1, "AMD Instinct MI300X"},         // Aqua Vanjaram [Instinct MI300X]
    AmdGpuName{0x74a2, "AMD Instinct MI308X"},         // Aqua Vanjaram [Instinct MI308X]
    AmdGpuName{0x74a5, "AMD Instinct MI325X"},         // Aqua Vanjaram [Instinct MI325X]
    AmdGpuName{0x75a0, "AMD Instinct MI350X"},         // Aqua Vanjaram [Instinct MI350X]
    AmdGpuName{0x75a3, "AMD Instinct MI355X"},         // Aqua Vanjaram [Instinct MI355X]
    AmdGpuName{0x66a1, "AMD Radeon Pro VII/Radeon Instinct MI50"},  // Vega 20 [Radeon Pro VII/Radeon Instinct MI50]
    // Radeon Pro (workstation)
    AmdGpuName{0x7448, "AMD Radeon Pro W7900"},             // Navi 31 [Radeon Pro W7900]
    AmdGpuName{0x744a, "AMD Radeon Pro W7900 Dual Slot"},   // Navi 31 [Radeon Pro W7900 Dual Slot]
    AmdGpuName{0x7449, "AMD Radeon Pro W7800 48GB"},        // Navi 31 [Radeon Pro W7800 48GB]
    AmdGpuName{0x745e, "AMD Radeon Pro W7800"},             // Navi 31 [Radeon Pro W7800]
    AmdGpuName{0x73a3, "AMD Radeon PRO W6800"},             // Navi 21 GL-XL [Radeon PRO W6800]
    AmdGpuName{0x7551, "AMD Radeon AI PRO R9700"},          // Navi 48 [Radeon AI PRO R9700]
    // Radeon (consumer)
    AmdGpuName{0x7550, "AMD Radeon RX 9070/9070 XT/9070 GRE"},             // Navi 48 [...]
    AmdGpuName{0x7590, "AMD Radeon RX 9050 / 9060 XT"},                    // Navi 44 [...]
    AmdGpuName{0x744c, "AMD Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M"},   // Navi 31 [...]
    AmdGpuName{0x747e, "AMD Radeon RX 7700 XT / 7800 XT"},                 // Navi 32 [...]
    AmdGpuName{0x7480, "AMD Radeon RX 7600/7600 XT/7600M XT/7600S/7700S / PRO W7600"},  // Navi 33 [...]
    AmdGpuName{0x73af, "AMD Radeon RX 6900 XT"},                           // Navi 21 [Radeon RX 6900 XT]
    AmdGpuName{0x73bf, "AMD Radeon RX 6800/6800 XT / 6900 XT"},            // Navi 21 [...]
    AmdGpuName{0x73df, "AMD Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT"},  // Navi 22 [...]
    AmdGpuName{0x66af, "AMD Radeon VII"},                                  // Vega 20 [Radeon VII]
    // APUs (integrated): the code name, with the graphics' name where pci.ids gives one
    AmdGpuName{0x1586, "AMD Strix Halo (Radeon 8050S / 8060S Graphics)"},  // Strix Halo [Radeon Graphics / ...]
    AmdGpuName{0x150e, "AMD Strix (Radeon 880M / 890M)"},                  // Strix [Radeon 880M / 890M]
    AmdGpuName{0x1114, "AMD Krackan (Radeon 840M / 860M Graphics)"},       // Krackan [Radeon 840M / 860M Graphics]
    AmdGpuName{0x15bf, "AMD Phoenix1 (Radeon Graphics)"},                  // Phoenix1
    AmdGpuName{0x15c8, "AMD Phoenix2 (Radeon Graphics)"},                  // Phoenix2
    AmdGpuName{0x1900, "AMD HawkPoint1 (Radeon Graphics)"},                // HawkPoint1
    AmdGpuName{0x1901, "AMD HawkPoint2 (Radeon Graphics)"},                // HawkPoint2
    AmdGpuName{0x1681, "AMD Rembrandt (Radeon 680M)"},                     // Rembrandt [Radeon 680M]
    AmdGpuName{0x164e, "AMD Raphael (Radeon Graphics)"},                   // Raphael
    AmdGpuName{0x13c0, "AMD Granite Ridge (Radeon Graphics)"},             // Granite Ridge [Radeon Graphics]
    AmdGpuName{0x1636, "AMD Renoir (Radeon Vega)"},                        // Renoir [Radeon Vega Series / ...]
    AmdGpuName{0x1638, "AMD Cezanne (Radeon Vega)"},                       // Cezanne [Radeon Vega Series / ...]
};

}  // namespace

std::string_view amd_gpu_table_name(uint32_t device_id) {
  for (const auto& row : kAmdGpuNames)
    if (row.device_id == device_id) return row.name;
  return {};
}

std::string amd_gpu_name(uint32_t device_id, std::string_view product_name) {
  if (auto name = amd_gpu_table_name(device_id); !name.empty()) return std::string(name);
  if (!product_name.empty()) return std::string(product_name);
  return fmt::format("AMD GPU (device 0x{:04x})", device_id);
}

}  // namespace sm
