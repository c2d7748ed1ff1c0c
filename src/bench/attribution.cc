#include "bench/attribution.h"

#include <algorithm>

#include <fmt/format.h>

#include "calc/catalog.h"
#include "net/connection_options.h"
#include "result/redact.h"
#include "report/report_model.h"
#include "result/hardware_file.h"
#include "sim/calc_sim_config.h"
#include "system/hardware_probe.h"

namespace sm {

namespace {

constexpr std::string_view kClientDetail = "the machine that ran speedmatrix (the client)";
// The most GPUs a declaration may name: what the results site accepts (data/site/upload-rules.json).
constexpr int64_t kMaxDeclaredGpus = 256;

Result<HardwareInfo> hardware_from_file(const std::string& path) {
  auto file = read_hardware_file(path);
  if (!file) return fail(file.error().code, "--server-hardware: " + file.error().message);
  HardwareInfo hw = std::move(file->hardware);
  hw.source = HardwareSource::Declared;
  std::string where = hw.hostname.empty() ? "the server's machine" : hw.hostname;
  hw.source_detail = file->probed_at.empty()
                         ? fmt::format("--server-hardware: probed by `speedmatrix hardware` on {}", where)
                         : fmt::format("--server-hardware: probed by `speedmatrix hardware` on {} at {}", where,
                                       file->probed_at);
  return hw;
}

HardwareInfo hardware_from_gpu_flags(const std::string& name, int64_t count) {
  HardwareInfo hw;
  hw.source = HardwareSource::Declared;
  GpuInfo gpu;
  gpu.name = name;
  std::string detail = fmt::format("--gpu \"{}\" --gpu-count {}", name, count);
  auto catalog = calc::Catalog::builtin();
  auto spec = catalog ? catalog->find_gpu(name) : Result<calc::GpuSpec>(std::unexpected(catalog.error()));
  if (spec) {
    gpu.name = spec->name;
    gpu.vram_bytes = spec->memory_bytes;
    hw.type = spec->type;
  } else {
    detail += " (not in the calculator's catalog: the name as given)";
  }
  hw.gpus.assign(static_cast<size_t>(count), gpu);
  hw.source_detail = std::move(detail);
  return hw;
}

}  // namespace

Result<std::optional<HardwareInfo>> declared_hardware(const HardwareDeclaration& d) {
  const bool file = !d.server_hardware_path.empty();
  const bool gpu = !d.gpu.empty();
  if (file && (gpu || d.gpu_count))
    return fail(ErrorCode::InvalidArgument,
                "--server-hardware and --gpu/--gpu-count both declare the server's hardware: give one of them");
  if (d.gpu_count && !gpu)
    return fail(ErrorCode::InvalidArgument, "--gpu-count needs --gpu NAME (the GPU model the server has N of)");
  if (d.gpu_count && *d.gpu_count < 1)
    return fail(ErrorCode::InvalidArgument, fmt::format("--gpu-count must be at least 1, got {}", *d.gpu_count));
  if (d.gpu_count && *d.gpu_count > kMaxDeclaredGpus)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--gpu-count {} is more GPUs than one server has (at most {})", *d.gpu_count, kMaxDeclaredGpus));
  if (file) {
    auto hw = hardware_from_file(d.server_hardware_path);
    if (!hw) return std::unexpected(hw.error());
    return std::optional<HardwareInfo>(std::move(*hw));
  }
  if (gpu) return std::optional<HardwareInfo>(hardware_from_gpu_flags(d.gpu, d.gpu_count.value_or(1)));
  return std::optional<HardwareInfo>();
}

Result<void> declare_server_hardware(RunConfig& config, const HardwareDeclaration& d, bool resuming) {
  auto declared = declared_hardware(d);
  if (!declared) return std::unexpected(declared.error());
  if (!*declared) return {};
  const std::string_view flag = d.server_hardware_path.empty() ? "--gpu" : "--server-hardware";
  if (resuming)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{}: --resume keeps the hardware the interrupted run recorded (in its result.json); drop {}",
                            flag, flag));
  if (!config.launch_command.empty())
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{}: --launch starts the server on this machine, whose hardware is probed; declare "
                            "hardware only for a server on another machine (--url)",
                            flag));
  if (config.embedded_sim)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{}: without --url, run measures the built-in simulated engine, whose hardware is "
                            "simulated; give --url of the server on another machine",
                            flag));
  config.server_hardware = std::move(**declared);
  return {};
}

TargetLocality locate_target(const RunConfig& config, std::string_view base_url, const HostLookup& lookup) {
  if (!config.launch_command.empty()) return {true, "speedmatrix started the server on this machine (--launch)"};
  if (config.embedded_sim) return {true, "the built-in simulated engine runs inside speedmatrix"};
  // Through a proxy the URL's host is where the proxy sends it: "127.0.0.1" is the proxy's own
  // machine, not this one. Nothing can be told from the URL then.
  if (const std::string proxy = effective_proxy(base_url, config.target.connection); !proxy.empty())
    return {false, fmt::format("requests go through the proxy {}, so where the server runs cannot be told from its URL",
                               redact_url(proxy))};
  return classify_url(base_url, lookup);
}

Attribution attribute(const TargetLocality& where, const std::optional<HardwareInfo>& declared,
                      const HardwareInfo& this_machine) {
  Attribution a;
  HardwareInfo client = this_machine;
  client.source = HardwareSource::Probed;
  client.source_detail = std::string(kClientDetail);
  if (declared) {
    a.hardware = *declared;
    a.hardware.source = HardwareSource::Declared;
    a.client_hardware = std::move(client);
    if (where.local)
      a.warnings.push_back(fmt::format(
          "The server's hardware was declared ({}) although the server looks like it runs on this machine ({}); "
          "the declaration is recorded, as it should be for an SSH tunnel or a forwarded port",
          a.hardware.source_detail, where.reason));
    return a;
  }
  if (where.local) {
    a.hardware = this_machine;
    a.hardware.source = HardwareSource::Probed;
    a.hardware.source_detail = where.reason;
    return a;
  }
  a.hardware.source = HardwareSource::Unknown;
  a.hardware.source_detail = where.reason + "; no hardware was declared";
  a.client_hardware = std::move(client);
  return a;
}

void attribute_hardware(RunResult& result, const RunConfig& config, std::string_view base_url) {
  const TargetLocality where =
      config.target_locality ? *config.target_locality : locate_target(config, base_url, system_host_lookup());
  Attribution a = attribute(where, config.server_hardware, probe_hardware());
  result.hardware = std::move(a.hardware);
  result.client_hardware = std::move(a.client_hardware);
  for (auto& w : a.warnings) result.warnings.push_back(std::move(w));
}

void keep_server_gpus(HardwareInfo& hardware, const std::vector<int>& server_gpus, std::span<const int> machine_gpus) {
  if (hardware.source != HardwareSource::Probed || hardware.gpus.size() != machine_gpus.size() ||
      server_gpus.size() >= machine_gpus.size())
    return;
  std::vector<GpuInfo> kept;
  for (size_t i = 0; i < machine_gpus.size(); ++i)
    if (std::find(server_gpus.begin(), server_gpus.end(), machine_gpus[i]) != server_gpus.end())
      kept.push_back(hardware.gpus[i]);
  hardware.machine_gpu_count = static_cast<int64_t>(hardware.gpus.size());
  hardware.gpus = std::move(kept);
  if (hardware.gpus.empty()) hardware.type = "CPU only";
}

std::string attribution_note(const TargetLocality& where, const std::optional<HardwareInfo>& declared) {
  if (declared)
    return fmt::format("the server's hardware is declared: {} ({})", report::hardware_display_name(*declared),
                       declared->source_detail);
  if (where.local) return "";
  return fmt::format(
      "the server runs on another machine ({}), and its hardware was not declared: the run will say \"{}\" and a "
      "results site will not rank it. On the server, run `speedmatrix hardware --out server-hardware.json` and add "
      "--server-hardware server-hardware.json here, or give --gpu \"NAME\" --gpu-count N",
      where.reason, report::kUnknownHardwareName);
}

RedactOptions attribution_redaction(const RunConfig& config) {
  RedactOptions options;
  options.drop_host = config.redact_host;
  if (!options.drop_host) return options;
  if (auto host = url_host(config.target.base_url); !host.empty()) options.hosts.push_back(host);
  if (config.server_hardware && !config.server_hardware->hostname.empty())
    options.hosts.push_back(config.server_hardware->hostname);
  return options;
}

void attribute_simulated_hardware(RunResult& result) {
  auto catalog = calc::Catalog::builtin();
  if (!catalog) return;
  auto setup = sim::calc_setup_for(sim::SimTarget::seed(), *catalog);
  if (!setup) return;
  HardwareInfo hw;
  hw.type = setup->gpu.type + " (simulated)";
  for (int i = 0; i < setup->gpus; ++i) {
    GpuInfo g;
    g.name = setup->gpu.name;
    g.vram_bytes = setup->gpu.memory_bytes;
    hw.gpus.push_back(g);
  }
  hw.cpu_model = result.hardware.cpu_model;
  hw.source = HardwareSource::Simulated;  // the simulated GPU is the (simulated) server's
  result.hardware = hw;
  result.engine.quantization = setup->quant.name;
  result.engine.backend = "simulated";
}

}  // namespace sm
