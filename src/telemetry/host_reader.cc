#include "telemetry/host_reader.h"

#include "system/sysfs_files.h"

#include <algorithm>
#include <fmt/format.h>

namespace sm {

namespace {

// The start of a small file (sysfs attributes, /proc/stat's first lines) into `buf`; empty when
// it cannot be read. No allocation: this runs every half second.
std::string_view read_head(const std::filesystem::path& file, char* buf, size_t size) {
  return sysfs::read_head(file, std::span<char>(buf, size));
}

// One integer file (kHz, millidegrees); nullopt when unreadable or not a number.
std::optional<double> read_number(const std::filesystem::path& file) {
  if (auto v = sysfs::read_int(file)) return static_cast<double>(*v);
  return std::nullopt;
}

}  // namespace

HostReader::HostReader(std::filesystem::path root, std::vector<int> own_pids)
    : proc_stat_(root / "proc/stat"),
      freq_files_(find_cpu_freq_files(root / "sys")),
      temp_sensors_(find_cpu_temp_sensors(root / "sys")),
      rapl_(root / "sys"),
      own_ticks_(own_pids.size()) {
  for (int pid : own_pids) own_stat_files_.push_back(root / "proc" / std::to_string(pid) / "stat");
}

HostReading HostReader::read() {
  HostReading r;

  // The aggregate line is the first one; 4 KiB holds it on any machine.
  char stat[4096];
  // The own processes' ticks just before the machine's, so their share is never the larger. A
  // process counts only where both reads saw it (one that ended, or was not yet readable, not).
  uint64_t own_used = 0;
  for (size_t i = 0; i < own_stat_files_.size(); ++i) {
    char buf[1024];
    const auto now = parse_process_cpu_ticks(read_head(own_stat_files_[i], buf, sizeof(buf)));
    if (now && own_ticks_[i] && *now >= *own_ticks_[i]) own_used += *now - *own_ticks_[i];
    own_ticks_[i] = now;
  }
  if (auto ticks = parse_cpu_ticks(read_head(proc_stat_, stat, sizeof(stat)))) {
    if (previous_) {
      r.cpu_util_pct = cpu_busy_pct(*previous_, *ticks);
      if (!own_stat_files_.empty() && r.cpu_util_pct) {
        const double total = static_cast<double>(ticks->total - previous_->total);
        const double other = static_cast<double>(ticks->busy - previous_->busy) - static_cast<double>(own_used);
        r.other_cpu_util_pct = std::clamp(100.0 * other / total, 0.0, 100.0);
      }
    }
    previous_ = ticks;
  }

  double khz_sum = 0;
  int cpus = 0;
  for (const auto& file : freq_files_) {
    if (auto khz = read_number(file); khz && *khz > 0) {
      khz_sum += *khz;
      ++cpus;
    }
  }
  if (cpus > 0) r.cpu_freq_mhz = khz_sum / cpus / 1000.0;

  for (const auto& sensor : temp_sensors_) {
    if (auto milli_c = read_number(sensor.input)) {
      const double c = *milli_c / 1000.0;
      if (!r.cpu_temp_c || c > *r.cpu_temp_c) r.cpu_temp_c = c;
    }
  }
  r.package_energy_j = rapl_.read();
  return r;
}

bool HostReader::has_proc_stat() const {
  char stat[4096];
  return parse_cpu_ticks(read_head(proc_stat_, stat, sizeof(stat))).has_value();
}

std::string HostReader::describe() const {
  std::string out = has_proc_stat() ? "CPU use from /proc/stat" : "no /proc/stat";
  out += freq_files_.empty() ? "; no cpufreq" : fmt::format("; frequency from cpufreq on {} CPUs", freq_files_.size());
  const std::string energy =
      rapl_.packages() > 0 ? fmt::format("; package energy from RAPL on {} package{}", rapl_.packages(),
                                         rapl_.packages() == 1 ? "" : "s")
                           : "";
  if (temp_sensors_.empty()) return out + "; no CPU temperature sensor" + energy;
  out += "; temperature from";
  for (size_t i = 0; i < temp_sensors_.size(); ++i) {
    const auto& s = temp_sensors_[i];
    const bool same_driver = i > 0 && temp_sensors_[i - 1].driver == s.driver;
    if (!same_driver) out += (i > 0 ? ", " : " ") + s.driver;
    if (!s.label.empty()) out += (same_driver ? ", " : " ") + s.label;
  }
  return out + energy;
}

}  // namespace sm
