#include "system/hardware_probe.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>

namespace sm {

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

template <class F>
void for_each_line(std::string_view text, F&& f) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    f(text.substr(pos, eol == std::string_view::npos ? text.npos : eol - pos));
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
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

}  // namespace

std::string parse_cpu_model(std::string_view cpuinfo) {
  std::string model;
  for_each_line(cpuinfo, [&](std::string_view line) {
    auto [k, v] = key_value(line, ':');
    if (model.empty() && (k == "model name" || k == "Model" || k == "Processor")) model = std::string(v);
  });
  return model;
}

int64_t parse_cpu_cores(std::string_view cpuinfo) {
  std::set<std::pair<std::string, std::string>> cores;
  int64_t logical = 0;
  std::string physical_id, core_id;
  for_each_line(cpuinfo, [&](std::string_view line) {
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
  for_each_line(meminfo, [&](std::string_view line) {
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
  for_each_line(os_release, [&](std::string_view line) {
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
  for_each_line(csv, [&](std::string_view line) {
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
  h.type = h.gpus.empty() ? "CPU only" : "Discrete GPU";
  return h;
}

}  // namespace sm
