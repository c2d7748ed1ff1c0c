#include "telemetry/telemetry_sources_open.h"

#include "engines/server_load.h"
#include "telemetry/nvml.h"

namespace sm {

Result<std::unique_ptr<GpuSource>> open_gpu_source(const std::string& path) {
  return NvmlGpus::open(path);
}

std::unique_ptr<HostSource> open_host_source(const std::string& root) {
  (void)root;
  return nullptr;
}

ServerSource open_server_source(EngineKind kind, const std::string& base_url, const std::vector<std::string>& headers,
                                const HttpTransport& transport) {
  auto reader = ServerLoadReader::detect(kind, base_url, headers, transport);
  if (!reader) return {};
  return [reader = *reader]() -> Result<ServerReading> {
    auto load = reader.read();
    if (!load) return std::unexpected(load.error());
    ServerReading r;
    r.running = load->running;
    r.waiting = load->waiting;
    return r;
  };
}

}  // namespace sm
