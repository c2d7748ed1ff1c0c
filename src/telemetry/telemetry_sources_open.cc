#include "telemetry/telemetry_sources_open.h"

#include "engines/server_load.h"
#include "telemetry/amdgpu_gpus.h"
#include "telemetry/host_reader.h"
#include "telemetry/nvml.h"

namespace sm {

namespace {

class HostReaderSource final : public HostSource {
 public:
  HostReaderSource(const std::string& root, std::vector<int> own_pids) : reader_(root, std::move(own_pids)) {}
  HostReading read() override { return reader_.read(); }
  const HostReader& reader() const { return reader_; }

 private:
  HostReader reader_;
};

}  // namespace

Result<std::unique_ptr<GpuSource>> open_gpu_source(const std::string& nvml_path,
                                                   const std::filesystem::path& sys_root) {
  auto nvml = NvmlGpus::open(nvml_path);
  if (nvml) return std::unique_ptr<GpuSource>(std::move(*nvml));
  if (auto amd = AmdgpuGpus::open(sys_root)) return std::unique_ptr<GpuSource>(std::move(*amd));
  return std::unexpected(nvml.error());
}

std::unique_ptr<HostSource> open_host_source(const std::string& root, std::vector<int> own_pids) {
  auto source = std::make_unique<HostReaderSource>(root, std::move(own_pids));
  if (!source->reader().has_proc_stat()) return nullptr;
  return source;
}

ServerSource open_server_source(EngineKind kind, const std::string& base_url, const std::vector<std::string>& headers,
                                const HttpTransport& transport) {
  auto reader = ServerLoadReader::detect(kind, base_url, headers, transport);
  if (!reader) return {};
  return [reader = *reader]() { return reader.read_reading(); };
}

}  // namespace sm
