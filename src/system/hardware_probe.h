#pragma once
// This machine's hardware and OS, for the Hardware section of every result: GPUs (through
// nvidia-smi when it is installed), CPU model and cores, RAM, OS and kernel.
#include <string>
#include <string_view>
#include <vector>

#include "result/result.h"

namespace sm {

/// Reads /proc, /etc/os-release, uname and `nvidia-smi --query-gpu=...`. Never fails: what it
/// cannot read stays empty.
HardwareInfo probe_hardware();

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
