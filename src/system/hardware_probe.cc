#include "system/hardware_probe.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>

#include "system/amdgpu_sysfs.h"
#include "system/sysfs_files.h"

namespace sm {

namespace fs = std::filesystem;

namespace {

std::string read_text(const char* path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string_view trim_line(std::string_view s) {  // blanks before, blanks and line ends after
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::pair<std::string_view, std::string_view> key_value(std::string_view line, char sep) {
  size_t at = line.find(sep);
  if (at == std::string_view::npos) return {trim_line(line), {}};
  return {trim_line(line.substr(0, at)), trim_line(line.substr(at + 1))};
}

// Runs a command and returns its stdout ("" when it cannot run). Only fixed command lines.
std::string run_command(const char* command) {
  std::string out;
  FILE* p = popen(command, "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  if (pclose(p) != 0) return "";
  return out;
}

// DRM drivers of display-only devices: server BMC VGA (ast, mgag200, hibmc-drm), firmware
// framebuffers and virtual machines' displays. A machine with only these is CPU only.
constexpr std::string_view kDisplayOnlyDrivers[] = {
    "ast", "mgag200", "hibmc-drm",                                             // BMC VGA
    "simple-framebuffer", "simpledrm", "efi-framebuffer", "vesa-framebuffer",  // firmware
    "bochs-drm", "cirrus-qemu", "cirrus", "qxl", "virtio_gpu", "vmwgfx",       // virtual machines
    "hyperv_drm", "vboxvideo", "udl", "vkms"};                                 // ..., USB, virtual KMS

std::string device_driver(const fs::path& device) {
  return std::string(sysfs::key_value(sysfs::read_text(device / "uevent"), "DRIVER"));
}

bool is_apple_silicon(const fs::path& root, std::string_view sysname, std::string_view machine) {
  if (sysname == "Darwin" && machine == "arm64") return true;
  // NUL-separated list, most specific first: "apple,j314s\0apple,t6000\0apple,arm-platform".
  const std::string compatible = sysfs::read_text(root / "proc/device-tree/compatible");
  return compatible.starts_with("apple,") || compatible.find(std::string_view("\0apple,", 7)) != std::string::npos;
}

// Drivers of accelerators other than amdgpu's and display-only devices (on a machine where
// nvidia-smi listed nothing: "nvidia" then says its driver is there without the tool).
std::vector<std::string> other_accelerator_drivers(const fs::path& root) {
  std::vector<std::string> drivers;
  auto add = [&](std::string driver) {
    if (driver.empty() || std::find(drivers.begin(), drivers.end(), driver) != drivers.end()) return;
    drivers.push_back(std::move(driver));
  };
  for (const auto& [n, dir] : sysfs::numbered_entries(root / "sys/class/accel", "accel")) add(device_driver(dir / "device"));
  for (const auto& [n, dir] : sysfs::numbered_entries(root / "sys/class/drm", "card")) {
    std::string driver = device_driver(dir / "device");
    const bool display_only = std::find(std::begin(kDisplayOnlyDrivers), std::end(kDisplayOnlyDrivers), driver) !=
                              std::end(kDisplayOnlyDrivers);
    if (driver == "amdgpu" || display_only) continue;
    add(std::move(driver));
  }
  return drivers;
}

}  // namespace

std::string parse_cpu_model(std::string_view cpuinfo) {
  std::string model;
  sysfs::for_each_line(cpuinfo, [&](std::string_view line) {
    auto [k, v] = key_value(line, ':');
    if (model.empty() && (k == "model name" || k == "Model" || k == "Processor")) model = std::string(v);
  });
  return model;
}

int64_t parse_cpu_cores(std::string_view cpuinfo) {
  std::set<std::pair<std::string, std::string>> cores;
  int64_t logical = 0;
  std::string physical_id, core_id;
  sysfs::for_each_line(cpuinfo, [&](std::string_view line) {
    auto [k, v] = key_value(line, ':');
    if (k == "processor") {
      ++logical;
      physical_id.clear();
      core_id.clear();
    } else if (k == "physical id") {
      physical_id = v;
    } else if (k == "core id") {
      core_id = v;
      cores.insert({physical_id, core_id});
    }
  });
  return cores.empty() ? logical : static_cast<int64_t>(cores.size());
}

std::optional<int64_t> parse_mem_total_bytes(std::string_view meminfo) {
  std::optional<int64_t> out;
  sysfs::for_each_line(meminfo, [&](std::string_view line) {
    auto [k, v] = key_value(line, ':');
    if (k == "MemTotal" && !out) {
      int64_t kib = 0;
      if (std::sscanf(std::string(v).c_str(), "%ld", &kib) == 1) out = kib * 1024;
    }
  });
  return out;
}

std::string parse_os_pretty_name(std::string_view os_release) {
  std::string name;
  sysfs::for_each_line(os_release, [&](std::string_view line) {
    auto [k, v] = key_value(line, '=');
    if (k == "PRETTY_NAME") {
      if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
      name = std::string(v);
    }
  });
  return name;
}

std::vector<GpuInfo> parse_nvidia_smi_csv(std::string_view csv) {
  std::vector<GpuInfo> gpus;
  sysfs::for_each_line(csv, [&](std::string_view line) {
    if (trim_line(line).empty()) return;
    std::vector<std::string> f;
    size_t pos = 0;
    while (true) {
      size_t comma = line.find(',', pos);
      f.emplace_back(trim_line(line.substr(pos, comma == std::string_view::npos ? line.npos : comma - pos)));
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
    GpuInfo g;
    g.name = f.size() > 0 ? f[0] : "";
    auto number = [](const std::string& s) -> std::optional<double> {
      try {
        size_t used = 0;
        double v = std::stod(s, &used);
        return used > 0 ? std::optional<double>(v) : std::nullopt;
      } catch (...) {
        return std::nullopt;
      }
    };
    if (f.size() > 1)
      if (auto mib = number(f[1])) g.vram_bytes = static_cast<int64_t>(*mib) * 1024 * 1024;
    if (f.size() > 2) g.driver = f[2];
    if (f.size() > 3) g.power_limit_w = number(f[3]);
    if (f.size() > 5 && number(f[4]) && number(f[5])) g.pcie = fmt::format("Gen{} x{}", f[4], f[5]);
    gpus.push_back(std::move(g));
  });
  return gpus;
}

HardwareInfo probe_hardware() {
  HardwareInfo h;
  const std::string cpuinfo = read_text("/proc/cpuinfo");
  h.cpu_model = parse_cpu_model(cpuinfo);
  if (int64_t cores = parse_cpu_cores(cpuinfo); cores > 0) h.cpu_cores = cores;
  h.ram_bytes = parse_mem_total_bytes(read_text("/proc/meminfo"));
  h.os = parse_os_pretty_name(read_text("/etc/os-release"));
  utsname u{};
  if (uname(&u) == 0) h.kernel = u.release;
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) h.hostname = host;
  h.gpus = parse_nvidia_smi_csv(run_command(
      "nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit,pcie.link.gen.max,"
      "pcie.link.width.max --format=csv,noheader,nounits 2>/dev/null"));
  add_accelerators(h, "/", u.sysname, u.machine);
  return h;
}

void add_accelerators(HardwareInfo& h, const fs::path& root, std::string_view sysname, std::string_view machine) {
  const bool nvidia_listed = !h.gpus.empty();
  const std::vector<AmdgpuCard> amd = find_amdgpu_cards(root);
  const std::string amd_driver = amd.empty() ? "" : read_amdgpu_driver_version(root);
  for (const AmdgpuCard& card : amd) {
    GpuInfo g;
    g.name = card.name;
    g.vram_bytes = read_amdgpu_vram_total(card);
    g.driver = amd_driver;
    g.power_limit_w = read_amdgpu_power_cap_w(card);
    if (const PcieLink max = read_amdgpu_pcie(card).max; max.gen && max.width)
      g.pcie = fmt::format("Gen{} x{}", *max.gen, *max.width);
    h.gpus.push_back(std::move(g));
  }
  // find_amdgpu_cards keeps integrated cards only where there is no discrete one.
  const bool amd_integrated_only = !amd.empty() && amd.front().integrated;
  if (!h.gpus.empty()) {
    h.type = amd_integrated_only && !nvidia_listed ? "Integrated GPU" : "Discrete GPU";
    return;
  }
  if (is_apple_silicon(root, sysname, machine)) {
    h.type = "Apple silicon";
    return;
  }
  const std::vector<std::string> others = other_accelerator_drivers(root);
  if (!others.empty()) {
    std::string list;
    for (const auto& d : others) list += (list.empty() ? "" : ", ") + d;
    h.type = "Other accelerator (driver " + list + ")";
    return;
  }
  h.type = "CPU only";
}

}  // namespace sm
