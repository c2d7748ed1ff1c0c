#pragma once
// This machine's hardware and OS, for the Hardware section of every result: GPUs (NVIDIA's
// through nvidia-smi when it is installed, AMD's through amdgpu's sysfs files), other
// accelerators, CPU model and cores, RAM, OS and kernel.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "result/result.h"

namespace sm {

/// Reads /proc, /etc/os-release, uname, `nvidia-smi --query-gpu=...` and /sys (add_accelerators).
/// Never fails: what it cannot read stays empty.
HardwareInfo probe_hardware();

/// Adds what /sys under `root` shows beside nvidia-smi's GPUs (already in `h.gpus`), and sets
/// `h.type` from all of it. `sysname` and `machine` are uname's ("Linux", "x86_64").
///   - AMD GPUs (find_amdgpu_cards, system/amdgpu_sysfs.h): name, VRAM, power cap, PCIe link at
///     most, and the amdgpu module's version where it has one, appended to `h.gpus`.
///   - type: "Discrete GPU" with any NVIDIA or discrete AMD GPU; "Integrated GPU" where the only
///     GPUs are an APU's; else "Apple silicon" on Darwin/arm64 or where the device tree's
///     `compatible` names an "apple," machine (Asahi Linux); else "Other accelerator (driver X)"
///     for a device of the kernel's accel class (/sys/class/accel: Gaudi, NPUs) or a DRM card
///     whose driver is neither a GPU read above nor display-only (a server's BMC VGA such as ast
///     or mgag200, firmware and virtual framebuffers); else "CPU only".
void add_accelerators(HardwareInfo& h, const std::filesystem::path& root, std::string_view sysname,
                      std::string_view machine);

// Parsers, exposed for tests.
std::string parse_cpu_model(std::string_view proc_cpuinfo);
/// Physical cores (distinct "physical id"/"core id" pairs), or logical processors when absent.
int64_t parse_cpu_cores(std::string_view proc_cpuinfo);
std::optional<int64_t> parse_mem_total_bytes(std::string_view proc_meminfo);
std::string parse_os_pretty_name(std::string_view os_release);
/// Output of `nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit,
/// pcie.link.gen.max,pcie.link.width.max --format=csv,noheader,nounits`.
std::vector<GpuInfo> parse_nvidia_smi_csv(std::string_view csv);

}  // namespace sm
