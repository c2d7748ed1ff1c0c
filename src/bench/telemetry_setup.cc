#include "bench/telemetry_setup.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "core/units.h"
#include "engines/server_load.h"
#include "telemetry/server_gpus.h"
#include "telemetry/telemetry_sources_open.h"

namespace sm {

TelemetrySetup start_telemetry(const TelemetrySetupOptions& o, const Clock& clock,
                               const std::function<void(const std::string&)>& note) {
  TelemetrySetup setup;
  TelemetryInfo& info = setup.info;
  info.interval_s = o.interval_s;
  info.client_side_only = o.remote_target;
  info.series_file = o.series_file;

  TelemetrySources sources;
  if (o.simulated_engine) {
    info.gpu_unavailable = "the simulated engine has no GPU";
  } else {
    auto gpu = open_gpu_source(o.nvml_lib, o.sys_root);
    if (gpu) {
      sources.gpu = std::move(*gpu);
      info.gpu_source = sources.gpu->source_name();
    } else {
      info.gpu_unavailable = gpu.error().message;
      note("no GPU telemetry: " + info.gpu_unavailable);
    }
  }
  sources.host = open_host_source(o.host_root, o.own_pids);
  info.host = sources.host != nullptr;
  sources.server = open_server_source(o.kind, o.base_url, o.headers, o.transport);
  info.server = static_cast<bool>(sources.server);
  setup.gpu_figures = sources.gpu != nullptr && !o.remote_target;
  if (sources.gpu && o.remote_target)
    note("GPU telemetry is of this machine, not of the server (it runs elsewhere): recorded in the series, kept "
         "out of the cells");

  RecorderOptions ro;
  if (!setup.gpu_figures && !o.declared_server_gpus.empty())
    note(std::string("--server-gpus is not used: ") +
         (o.simulated_engine ? "the simulated engine has no GPU"
          : o.remote_target  ? "the server runs on another machine, and the GPUs read here are the client's"
                             : "there is no GPU telemetry (" + info.gpu_unavailable + ")"));
  if (setup.gpu_figures) {
    ServerGpuEvidence evidence;
    evidence.declared = o.declared_server_gpus;
    evidence.processes = sources.gpu->processes();
    evidence.server_pids = o.server_pids;
    read_server_gpu_environment(o.server_pids, evidence);
    const auto machine_gpus = sources.gpu->static_info();
    auto chosen = choose_server_gpus(evidence, machine_gpus);
    if (!chosen) {
      setup.refused = chosen.error().message;
      return setup;
    }
    for (const auto& n : chosen->notes) note(n);
    info.server_gpus = chosen->indices;
    info.server_gpus_source = chosen->source;
    info.server_gpus_detail = chosen->detail;
    if (chosen->indices.empty()) {
      setup.gpu_figures = false;
      note(chosen->detail + ": the GPUs' readings are recorded in the series and kept out of the cells");
    }
    ro.server_gpus = chosen->indices;
  }
  ro.interval_ns = static_cast<int64_t>(o.interval_s * 1e9);
  ro.jsonl_path = o.run_dir.empty() ? "" : (std::filesystem::path(o.run_dir) / o.series_file).string();
  setup.recorder = std::make_unique<TelemetryRecorder>(std::move(sources), clock, ro, note);
  setup.recorder->start(wall_clock_unix_ms());
  setup.recorder->sample_now();  // the first readings (power limit, PCIe link) before the first cell

  std::vector<GpuReading> first = setup.recorder->first_gpu_reading();
  for (const auto& g : setup.recorder->gpus()) {
    TelemetryGpu t;
    t.index = g.index;
    t.name = g.name;
    t.sm_clock_max_mhz = g.sm_clock_max_mhz;
    t.mem_clock_max_mhz = g.mem_clock_max_mhz;
    for (const auto& r : first)
      if (r.index == g.index) {
        t.power_limit_w = r.power_limit_w;
        if (r.pcie_gen && r.pcie_width) t.pcie = fmt::format("Gen{} x{}", *r.pcie_gen, *r.pcie_width);
      }
    if (g.pcie_gen_max && g.pcie_width_max)
      t.pcie += fmt::format("{}max Gen{} x{}", t.pcie.empty() ? "" : " (", *g.pcie_gen_max, *g.pcie_width_max) +
                (t.pcie.empty() ? "" : ")");
    info.gpus.push_back(std::move(t));
  }
  return setup;
}

std::string live_telemetry_text(const LiveTelemetry& live) {
  std::string out;
  if (live.gpu_power_w) out += fmt::format(" · {:.0f} W", *live.gpu_power_w);
  if (live.gpu_sm_clock_mhz) out += " · " + format_whole(*live.gpu_sm_clock_mhz) + " MHz";
  return out;
}

}  // namespace sm
