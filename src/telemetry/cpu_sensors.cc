#include "telemetry/cpu_sensors.h"

#include "system/sysfs_files.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <system_error>

namespace sm {

namespace fs = std::filesystem;

namespace {

bool is_arm_cpu_zone(const std::string& driver) {
  return driver.starts_with("cpu") && driver.ends_with("_thermal");
}

// The sensors of one hwmon device that say the package/die temperature.
std::vector<CpuTempSensor> package_sensors(const fs::path& device) {
  const std::string driver = sysfs::first_line(device / "name");
  const bool coretemp = driver == "coretemp";
  const bool amd = driver == "k10temp" || driver == "zenpower";
  if (!coretemp && !amd && !is_arm_cpu_zone(driver)) return {};

  std::vector<CpuTempSensor> all;
  for (const auto& [index, input] : sysfs::numbered_entries(device, "temp", "_input")) {
    const fs::path label_file = device / ("temp" + std::to_string(index) + "_label");
    all.push_back({input, driver, fs::exists(label_file) ? sysfs::first_line(label_file) : ""});
  }
  auto with_label = [&](auto keep) {
    std::vector<CpuTempSensor> out;
    std::copy_if(all.begin(), all.end(), std::back_inserter(out), keep);
    return out;
  };
  if (coretemp) {
    // "Package id N" since Linux 3.x; "Physical id N" before.
    auto pkg = with_label([](const CpuTempSensor& s) {
      return s.label.starts_with("Package id") || s.label.starts_with("Physical id");
    });
    return pkg.empty() ? all : pkg;
  }
  if (amd) {
    for (const char* name : {"Tdie", "Tctl"}) {
      auto die = with_label([name](const CpuTempSensor& s) { return s.label == name; });
      if (!die.empty()) return die;
    }
    return with_label([](const CpuTempSensor& s) { return s.label.empty(); });
  }
  return all;  // cpu_thermal: the zone is the CPU
}

}  // namespace

std::vector<fs::path> find_cpu_freq_files(const fs::path& sys) {
  std::vector<fs::path> out;
  for (const auto& [n, cpu] : sysfs::numbered_entries(sys / "devices/system/cpu", "cpu")) {
    fs::path file = cpu / "cpufreq/scaling_cur_freq";
    std::error_code ec;
    if (fs::exists(file, ec)) out.push_back(std::move(file));
  }
  return out;
}

std::vector<CpuTempSensor> find_cpu_temp_sensors(const fs::path& sys) {
  std::vector<CpuTempSensor> out;
  for (const auto& [n, device] : sysfs::numbered_entries(sys / "class/hwmon", "hwmon")) {
    auto sensors = package_sensors(device);
    out.insert(out.end(), sensors.begin(), sensors.end());
  }
  return out;
}

}  // namespace sm
