#include "telemetry/server_gpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include "core/text.h"

namespace sm {

namespace {

// The GPU an item names: an index, or a UUID or the unique start of one (as CUDA accepts it).
std::optional<int> find_gpu(std::string_view item, std::span<const GpuStaticInfo> gpus) {
  if (all_digits(item)) {
    const int index = item.size() > 6 ? -1 : std::stoi(std::string(item));
    for (const auto& g : gpus)
      if (g.index == index) return index;
    return std::nullopt;
  }
  const std::string wanted = ascii_lower(item);
  std::optional<int> found;
  for (const auto& g : gpus)
    if (!g.uuid.empty() && ascii_lower(g.uuid).starts_with(wanted)) {
      if (found) return std::nullopt;  // ambiguous
      found = g.index;
    }
  return found;
}

std::string machine_gpus_text(std::span<const GpuStaticInfo> gpus) {
  std::string out;
  for (const auto& g : gpus) {
    if (!out.empty()) out += ", ";
    out += std::to_string(g.index);
    if (!g.uuid.empty()) out += " (" + g.uuid + ")";
  }
  return out.empty() ? "none" : out;
}

std::string index_list(const std::vector<int>& indices) {
  std::string out;
  for (int i : indices) out += (out.empty() ? "" : ",") + std::to_string(i);
  return out;
}

void add_unique(std::vector<int>& v, int x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

std::optional<ServerGpus> from_process_list(const ServerGpuEvidence& e) {
  if (!e.processes || e.server_pids.empty()) return std::nullopt;
  ServerGpus out;
  std::vector<int> seen_pids;
  for (const auto& gpu : *e.processes)
    for (int pid : gpu.pids)
      if (std::find(e.server_pids.begin(), e.server_pids.end(), pid) != e.server_pids.end()) {
        add_unique(out.indices, gpu.index);
        add_unique(seen_pids, pid);
      }
  if (out.indices.empty()) return std::nullopt;
  std::sort(out.indices.begin(), out.indices.end());
  out.source = "process_list";
  out.detail = fmt::format("the driver lists the server's process{} {} on GPU{} {}", seen_pids.size() > 1 ? "es" : "",
                           index_list(seen_pids), out.indices.size() > 1 ? "s" : "", index_list(out.indices));
  return out;
}

// `notes` gets what must be said even when the variable decides nothing (a MIG instance).
std::optional<ServerGpus> from_visible_devices(const ServerGpuEvidence& e, std::span<const GpuStaticInfo> gpus,
                                               std::vector<std::string>& notes) {
  if (!e.visible_devices) return std::nullopt;
  const auto& [name, value] = *e.visible_devices;
  ServerGpus out;
  out.source = "visible_devices";
  // The runtime's rule: the list ends at the first item that names no device.
  for (const std::string& item : split_gpu_list(value)) {
    if (ascii_lower(item).starts_with("mig-")) {
      notes.push_back(fmt::format("the server's {} names a MIG instance ({}): its GPU cannot be told from it; "
                                      "declare the GPU with --server-gpus",
                                      name, item));
      break;
    }
    auto index = find_gpu(item, gpus);
    if (!index) break;
    add_unique(out.indices, *index);
  }
  if (out.indices.empty() && !notes.empty()) return std::nullopt;
  out.detail = out.indices.empty()
                   ? fmt::format("the server's {}=\"{}\" leaves it no GPU", name, value)
                   : fmt::format("the server's {}={}", name, value);
  const bool mixed = std::any_of(gpus.begin(), gpus.end(), [&](const GpuStaticInfo& g) { return g.name != gpus.front().name; });
  const auto items = split_gpu_list(value);
  if (name == "CUDA_VISIBLE_DEVICES" && mixed && e.cuda_device_order != "PCI_BUS_ID" &&
      std::any_of(items.begin(), items.end(), [](const std::string& s) { return all_digits(s); }))
    out.notes.push_back(
        "the server's CUDA_VISIBLE_DEVICES numbers GPUs in CUDA's order (fastest first), which on a machine with "
        "different GPUs need not be nvidia-smi's: the GPUs recorded may be the wrong ones; set "
        "CUDA_DEVICE_ORDER=PCI_BUS_ID or declare them with --server-gpus");
  return out;
}

}  // namespace

std::vector<std::string> split_gpu_list(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.remove_prefix(1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

Result<ServerGpus> choose_server_gpus(const ServerGpuEvidence& e, std::span<const GpuStaticInfo> gpus) {
  if (!e.declared.empty()) {
    ServerGpus out;
    out.source = "declared";
    for (const std::string& item : e.declared) {
      auto index = find_gpu(item, gpus);
      if (!index)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("--server-gpus {}: no GPU of this machine is \"{}\" (its GPUs, by NVML index as "
                                "nvidia-smi numbers them: {})",
                                fmt::join(e.declared, ","), item, machine_gpus_text(gpus)));
      add_unique(out.indices, *index);
    }
    std::sort(out.indices.begin(), out.indices.end());
    out.detail = "--server-gpus " + fmt::format("{}", fmt::join(e.declared, ","));
    return out;
  }
  if (auto found = from_process_list(e)) return *found;
  std::vector<std::string> notes;
  if (auto found = from_visible_devices(e, gpus, notes)) {
    found->notes.insert(found->notes.begin(), notes.begin(), notes.end());
    return *found;
  }
  ServerGpus out;
  out.notes = std::move(notes);
  out.source = "all";
  for (const auto& g : gpus) out.indices.push_back(g.index);
  if (gpus.size() > 1) {
    const std::string why = !e.processes         ? "the driver has no process list"
                            : e.server_pids.empty() ? "the server's processes are not known (it runs in a container, "
                                                      "or as another user)"
                                                    : "the driver lists none of the server's processes";
    out.detail = fmt::format("could not tell which of the {} GPUs the server uses ({})", gpus.size(), why);
    out.notes.push_back(out.detail + ": all of them are counted in power, energy and tokens per joule; declare the "
                                     "server's GPUs with --server-gpus");
  } else {
    out.detail = "the machine's only GPU";
  }
  return out;
}

void read_server_gpu_environment(std::span<const int> pids, ServerGpuEvidence& evidence, const std::string& root) {
  for (int pid : pids) {
    std::ifstream in(root + "/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    if (!in) continue;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::optional<std::pair<std::string, std::string>> visible;
    size_t rank = std::size(kVisibleDevicesVariables);
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\0', start);
      if (end == std::string::npos) end = text.size();
      const std::string_view entry(text.data() + start, end - start);
      start = end + 1;
      const size_t eq = entry.find('=');
      if (eq == std::string_view::npos) continue;
      const std::string_view name = entry.substr(0, eq), value = entry.substr(eq + 1);
      if (name == "CUDA_DEVICE_ORDER") evidence.cuda_device_order = std::string(value);
      for (size_t r = 0; r < rank; ++r)
        if (name == kVisibleDevicesVariables[r]) {
          visible = std::pair{std::string(name), std::string(value)};
          rank = r;
        }
    }
    if (visible) evidence.visible_devices = visible;  // a later (child) process over its parent
  }
}

}  // namespace sm
