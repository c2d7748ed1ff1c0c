#include "telemetry/cpu_sensors.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <optional>
#include <system_error>

namespace sm {

namespace fs = std::filesystem;

namespace {

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// N when name is prefix + N + suffix, N all digits.
std::optional<long> number_in(std::string_view name, std::string_view prefix, std::string_view suffix) {
  if (!name.starts_with(prefix) || !name.ends_with(suffix) || name.size() == prefix.size() + suffix.size())
    return std::nullopt;
  std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits[0] < '0' || digits[0] > '9') return std::nullopt;
  long n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return n;
}

// Entries of a directory named prefix + N + suffix, sorted by N (cpu2 before cpu10).
std::vector<std::pair<long, fs::path>> numbered(const fs::path& dir, std::string_view prefix,
                                                std::string_view suffix = "") {
  std::vector<std::pair<long, fs::path>> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (auto n = number_in(it->path().filename().string(), prefix, suffix)) out.emplace_back(*n, it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool is_arm_cpu_zone(const std::string& driver) {
  return driver.starts_with("cpu") && driver.ends_with("_thermal");
}

// The sensors of one hwmon device that say the package/die temperature.
std::vector<CpuTempSensor> package_sensors(const fs::path& device) {
  const std::string driver = first_line(device / "name");
  const bool coretemp = driver == "coretemp";
  const bool amd = driver == "k10temp" || driver == "zenpower";
  if (!coretemp && !amd && !is_arm_cpu_zone(driver)) return {};

  std::vector<CpuTempSensor> all;
  for (const auto& [index, input] : numbered(device, "temp", "_input")) {
    const fs::path label_file = device / ("temp" + std::to_string(index) + "_label");
    all.push_back({input, driver, fs::exists(label_file) ? first_line(label_file) : ""});
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
  for (const auto& [n, cpu] : numbered(sys / "devices/system/cpu", "cpu")) {
    fs::path file = cpu / "cpufreq/scaling_cur_freq";
    std::error_code ec;
    if (fs::exists(file, ec)) out.push_back(std::move(file));
  }
  return out;
}

std::vector<CpuTempSensor> find_cpu_temp_sensors(const fs::path& sys) {
  std::vector<CpuTempSensor> out;
  for (const auto& [n, device] : numbered(sys / "class/hwmon", "hwmon")) {
    auto sensors = package_sensors(device);
    out.insert(out.end(), sensors.begin(), sensors.end());
  }
  return out;
}

}  // namespace sm
