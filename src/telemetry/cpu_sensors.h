#pragma once
// Where this machine exposes its CPUs' frequency and temperature in /sys: found once, read on
// every sample (host_reader.h). `sys` is the /sys directory, injectable so tests use a fixture tree.
#include <filesystem>
#include <string>
#include <vector>

namespace sm {

/// sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq (kHz) of every CPU that has one, by N.
/// Empty where the kernel has no cpufreq driver (most VMs).
std::vector<std::filesystem::path> find_cpu_freq_files(const std::filesystem::path& sys);

/// One CPU package/die temperature input (millidegrees Celsius).
struct CpuTempSensor {
  std::filesystem::path input;  ///< .../hwmonN/tempK_input
  std::string driver;           ///< the hwmon device's name: coretemp, k10temp, zenpower, cpu_thermal
  std::string label;            ///< tempK_label, empty when the driver writes none
};

/// The package/die sensors among sys/class/hwmon/hwmon*: coretemp's "Package id N" (its per-core
/// sensors when it has no package one), k10temp's and zenpower's "Tdie", else "Tctl" (on some
/// Zen 1 parts Tctl carries a fixed offset above the die; Tccd sensors are parts of the die, like
/// cores), or their one unlabelled sensor (older AMD families), and every input of an ARM
/// cpu*_thermal zone. Other devices (ACPI zones, boards, drives, GPUs) are not the CPU. Empty
/// where none is exposed (most VMs).
std::vector<CpuTempSensor> find_cpu_temp_sensors(const std::filesystem::path& sys);

}  // namespace sm
