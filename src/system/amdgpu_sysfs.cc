#include "system/amdgpu_sysfs.h"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "system/amdgpu_names.h"
#include "system/sysfs_files.h"

namespace sm {

namespace fs = std::filesystem;

namespace {

// The number at the start of `text` (blanks skipped), and what follows it.
std::optional<double> leading_number(std::string_view& text) {
  text = sysfs::trim(text);
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return v;
}

// Calls f(level_text, marked) for each "label: text [*]" line of a pp_dpm_* file.
template <class F>
void for_each_dpm_level(std::string_view text, F&& f) {
  sysfs::for_each_line(text, [&](std::string_view line) {
    line = sysfs::trim(line);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    const bool marked = line.ends_with('*');
    if (marked) line.remove_suffix(1);
    f(line.substr(colon + 1), marked);
  });
}

void keep_max(std::optional<int>& best, std::optional<int> v) {
  if (v && (!best || *v > *best)) best = v;
}

std::optional<uint32_t> pci_device_id(std::string_view pci_id) {  // "1002:74A1" -> 0x74a1
  const size_t colon = pci_id.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view hex = pci_id.substr(colon + 1);
  uint32_t id = 0;
  auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), id, 16);
  if (ec != std::errc() || end != hex.data() + hex.size()) return std::nullopt;
  return id;
}

bool is_integrated(const fs::path& device, const fs::path& hwmon) {
  if (auto apu = sysfs::read_int(device / "apu")) return *apu == 1;
  std::error_code ec;
  return !hwmon.empty() && fs::exists(hwmon / "in1_input", ec);
}

}  // namespace

std::vector<AmdgpuCard> find_amdgpu_cards(const fs::path& root) {
  std::vector<AmdgpuCard> cards;
  for (const auto& [n, dir] : sysfs::numbered_entries(root / "sys/class/drm", "card")) {
    const fs::path device = dir / "device";
    const std::string uevent = sysfs::read_text(device / "uevent");
    if (sysfs::key_value(uevent, "DRIVER") != "amdgpu") continue;
    AmdgpuCard card;
    card.card = static_cast<int>(n);
    card.device = device;
    card.device_id = pci_device_id(sysfs::key_value(uevent, "PCI_ID")).value_or(0);
    card.pci_slot = std::string(sysfs::key_value(uevent, "PCI_SLOT_NAME"));
    if (auto hwmons = sysfs::numbered_entries(device / "hwmon", "hwmon"); !hwmons.empty())
      card.hwmon = hwmons.front().second;
    card.product_name = sysfs::read_text(device / "product_name");
    card.integrated = is_integrated(device, card.hwmon);
    card.name = amd_gpu_name(card.device_id, card.product_name);
    cards.push_back(std::move(card));
  }
  const bool any_discrete = std::any_of(cards.begin(), cards.end(), [](const AmdgpuCard& c) { return !c.integrated; });
  if (any_discrete) std::erase_if(cards, [](const AmdgpuCard& c) { return c.integrated; });
  return cards;
}

DpmClocks parse_dpm_clocks(std::string_view text) {
  DpmClocks out;
  for_each_dpm_level(text, [&](std::string_view level, bool marked) {
    auto mhz = leading_number(level);
    if (!mhz) return;
    if (marked) out.current_mhz = mhz;
    if (!out.max_mhz || *mhz > *out.max_mhz) out.max_mhz = mhz;
  });
  return out;
}

std::optional<int> pcie_gen_of_speed(std::string_view speed) {
  auto gt_s = leading_number(speed);
  if (!gt_s || !sysfs::trim(speed).starts_with("GT/s")) return std::nullopt;
  constexpr std::pair<double, int> kGens[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}};
  for (auto [rate, gen] : kGens)
    if (*gt_s > rate * 0.9 && *gt_s < rate * 1.1) return gen;
  return std::nullopt;
}

DpmPcie parse_dpm_pcie(std::string_view text) {
  DpmPcie out;
  for_each_dpm_level(text, [&](std::string_view level, bool marked) {
    PcieLink link;
    link.gen = pcie_gen_of_speed(level);
    if (size_t x = level.find(", x"); x != std::string_view::npos) {
      std::string_view lanes = level.substr(x + 3);
      if (auto n = leading_number(lanes)) link.width = static_cast<int>(*n);
    }
    if (marked) out.current = link;
    keep_max(out.max.gen, link.gen);
    keep_max(out.max.width, link.width);
  });
  return out;
}

DpmPcie read_amdgpu_pcie(const AmdgpuCard& card) {
  DpmPcie out = parse_dpm_pcie(sysfs::read_text(card.device / "pp_dpm_pcie"));
  auto width = [](const fs::path& file) -> std::optional<int> {
    if (auto v = sysfs::read_int(file)) return static_cast<int>(*v);
    return std::nullopt;
  };
  if (!out.current.gen) {
    out.current.gen = pcie_gen_of_speed(sysfs::read_text(card.device / "current_link_speed"));
    out.current.width = width(card.device / "current_link_width");
  }
  if (!out.max.gen) {
    out.max.gen = pcie_gen_of_speed(sysfs::read_text(card.device / "max_link_speed"));
    out.max.width = width(card.device / "max_link_width");
  }
  return out;
}

std::optional<int64_t> read_amdgpu_vram_total(const AmdgpuCard& card) {
  return sysfs::read_int(card.device / "mem_info_vram_total");
}

std::optional<double> read_amdgpu_power_cap_w(const AmdgpuCard& card) {
  if (card.hwmon.empty()) return std::nullopt;
  if (auto uw = sysfs::read_int(card.hwmon / "power1_cap"); uw && *uw > 0) return static_cast<double>(*uw) / 1e6;
  return std::nullopt;
}

std::string read_amdgpu_driver_version(const fs::path& root) {
  return sysfs::read_text(root / "sys/module/amdgpu/version");
}

}  // namespace sm
