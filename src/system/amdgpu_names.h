#pragma once
// The marketing name of an AMD GPU from its PCI device id (the `PCI_ID=1002:XXXX` of its
// uevent), for the hardware section and the telemetry's GPU list. Only common datacenter,
// workstation and consumer parts and recent APUs are listed; every row is from the PCI ID
// Repository's pci.ids (see amdgpu_names.cc).
#include <cstdint>
#include <string>
#include <string_view>

namespace sm {

/// The name of AMD (vendor 0x1002) device `device_id`, e.g. 0x74a1 -> "AMD Instinct MI300X";
/// empty when the table does not list it. One id can stand for several boards (0x744c is the
/// RX 7900 XT, XTX and GRE): the name then lists them, as pci.ids does.
std::string_view amd_gpu_table_name(uint32_t device_id);

/// The name to record: the table's, else the card's own `product_name` (written by boards with
/// a FRU EEPROM, mostly server parts), else "AMD GPU (device 0x74a1)".
std::string amd_gpu_name(uint32_t device_id, std::string_view product_name);

}  // namespace sm
