#include "telemetry/amdgpu_gpus.h"

#include "system/sysfs_files.h"

namespace sm {

namespace fs = std::filesystem;

namespace {

// A value file scaled to its unit (µW -> W: 1e-6); std::nullopt when absent or unreadable.
std::optional<double> scaled(const fs::path& file, double factor) {
  if (file.empty()) return std::nullopt;
  if (auto v = sysfs::read_int(file)) return static_cast<double>(*v) * factor;
  return std::nullopt;
}

std::string_view read_small(const fs::path& file, std::span<char> buf) {
  return file.empty() ? std::string_view{} : sysfs::read_head(file, buf);
}

}  // namespace

AmdgpuGpus::AmdgpuGpus(std::vector<AmdgpuCard> cards) : cards_(std::move(cards)) {
  for (size_t i = 0; i < cards_.size(); ++i) {
    const AmdgpuCard& c = cards_[i];
    CardFiles f;
    if (!c.hwmon.empty()) {
      f.power_average = c.hwmon / "power1_average";
      f.power_input = c.hwmon / "power1_input";
      f.energy = c.hwmon / "energy1_input";
      f.cap = c.hwmon / "power1_cap";
      f.temp_edge = c.hwmon / "temp1_input";
      f.temp_junction = c.hwmon / "temp2_input";
    }
    f.sclk = c.device / "pp_dpm_sclk";
    f.mclk = c.device / "pp_dpm_mclk";
    f.pcie = c.device / "pp_dpm_pcie";
    f.link_speed = c.device / "current_link_speed";
    f.link_width = c.device / "current_link_width";
    f.busy = c.device / "gpu_busy_percent";
    f.mem_busy = c.device / "mem_busy_percent";
    f.vram_used = c.device / "mem_info_vram_used";
    files_.push_back(std::move(f));

    GpuStaticInfo s;
    s.index = static_cast<int>(i);
    s.name = c.name;
    s.mem_total_bytes = read_amdgpu_vram_total(c);
    s.sm_clock_max_mhz = parse_dpm_clocks(sysfs::read_text(files_.back().sclk)).max_mhz;
    s.mem_clock_max_mhz = parse_dpm_clocks(sysfs::read_text(files_.back().mclk)).max_mhz;
    const DpmPcie pcie = read_amdgpu_pcie(c);
    s.pcie_gen_max = pcie.max.gen;
    s.pcie_width_max = pcie.max.width;
    static_info_.push_back(std::move(s));
  }
}

Result<std::unique_ptr<AmdgpuGpus>> AmdgpuGpus::open(const fs::path& root) {
  std::vector<AmdgpuCard> cards = find_amdgpu_cards(root);
  if (cards.empty())
    return fail(ErrorCode::Unsupported, "no amdgpu card under " + (root / "sys/class/drm").string());
  return std::unique_ptr<AmdgpuGpus>(new AmdgpuGpus(std::move(cards)));
}

void AmdgpuGpus::read(std::vector<GpuReading>& out) {
  out.resize(files_.size());
  char buf[1024];
  for (size_t i = 0; i < files_.size(); ++i) {
    const CardFiles& f = files_[i];
    GpuReading r;
    r.index = static_cast<int>(i);
    r.power_w = scaled(f.power_average, 1e-6);
    if (!r.power_w) r.power_w = scaled(f.power_input, 1e-6);
    r.energy_j = scaled(f.energy, 1e-6);
    r.power_limit_w = scaled(f.cap, 1e-6);
    if (r.power_limit_w && *r.power_limit_w <= 0) r.power_limit_w.reset();
    r.temp_c = scaled(f.temp_edge, 1e-3);
    if (!r.temp_c) r.temp_c = scaled(f.temp_junction, 1e-3);
    r.sm_clock_mhz = parse_dpm_clocks(read_small(f.sclk, buf)).current_mhz;
    r.mem_clock_mhz = parse_dpm_clocks(read_small(f.mclk, buf)).current_mhz;
    r.util_pct = scaled(f.busy, 1);
    r.mem_util_pct = scaled(f.mem_busy, 1);
    if (auto used = sysfs::read_int(f.vram_used)) r.mem_used_bytes = *used;
    PcieLink link = parse_dpm_pcie(read_small(f.pcie, buf)).current;
    if (!link.gen) {
      link.gen = pcie_gen_of_speed(sysfs::trim(read_small(f.link_speed, buf)));
      if (auto lanes = sysfs::read_int(f.link_width)) link.width = static_cast<int>(*lanes);
    }
    r.pcie_gen = link.gen;
    r.pcie_width = link.width;
    out[i] = r;
  }
}

}  // namespace sm
