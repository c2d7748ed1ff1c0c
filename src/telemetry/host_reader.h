#pragma once
// This machine's CPU state for the telemetry sampler (called about every 0.5 s on its own thread):
// utilisation from /proc/stat, mean current frequency from cpufreq, and the hottest CPU
// package/die temperature from hwmon (cpu_sensors.h), and the packages' energy from RAPL (rapl.h). What the kernel does not expose stays
// empty: a VM usually has /proc/stat only.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/cpu_sensors.h"
#include "telemetry/proc_stat.h"
#include "telemetry/rapl.h"
#include "result/telemetry_types.h"

namespace sm {

class HostReader {
 public:
  /// Finds the frequency files and temperature sensors under `root` ("/" on this machine; a
  /// fixture tree in tests) once; reads nothing yet.
  explicit HostReader(std::filesystem::path root = "/", std::vector<int> own_pids = {});

  /// One reading: a few small files (one /proc/stat line, one file per CPU and per sensor).
  /// cpu_util_pct is the busy share of all CPUs since the previous read(): empty on the first
  /// read, which has no interval (never an average since boot). With `own_pids` (speedmatrix, the
  /// server and its children), other_cpu_util_pct is the busy share those processes did not use.
  /// Not thread-safe: one sampler thread owns a reader.
  HostReading read();

  /// Whether /proc/stat can be read and parsed (reads it once; does not change read()'s interval).
  bool has_proc_stat() const;

  /// What is exposed, for a note: "CPU use from /proc/stat; frequency from cpufreq on 16 CPUs;
  /// temperature from k10temp Tctl", or "...; no cpufreq; no CPU temperature sensor".
  std::string describe() const;

 private:
  std::filesystem::path proc_stat_;
  std::vector<std::filesystem::path> freq_files_;
  std::vector<CpuTempSensor> temp_sensors_;
  RaplReader rapl_;  ///< the CPU packages' energy counters, where readable
  std::optional<CpuTicks> previous_;
  std::vector<std::filesystem::path> own_stat_files_;  ///< /proc/<pid>/stat of each own process
  std::vector<std::optional<uint64_t>> own_ticks_;     ///< their CPU ticks at the last read (unreadable: none)
};

}  // namespace sm
