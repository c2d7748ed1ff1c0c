#pragma once
// Where the telemetry recorder reads from: the GPUs (NVML or amdgpu's sysfs files in a run, a
// fake in tests), the host, and the server's metrics. Each source is called from the recorder's sampler thread only (and,
// between windows, from sample_now() under the same lock), never concurrently.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "result/telemetry_types.h"

namespace sm {

/// The processes with a context on one GPU (compute or graphics), at one moment.
struct GpuProcesses {
  int index = 0;          ///< the GPU (GpuStaticInfo::index)
  std::vector<int> pids;  ///< as the driver sees them (the host's PID namespace)
};

class GpuSource {
 public:
  virtual ~GpuSource() = default;
  /// The GPUs' fixed facts, read once.
  virtual std::vector<GpuStaticInfo> static_info() = 0;
  /// One reading per GPU into `out` (reused between calls).
  virtual void read(std::vector<GpuReading>& out) = 0;
  /// Each GPU's processes now; std::nullopt when the source cannot list them.
  virtual std::optional<std::vector<GpuProcesses>> processes() { return std::nullopt; }
  /// What the readings come through, as TelemetryInfo::gpu_source records it: "nvml",
  /// "amdgpu-sysfs".
  virtual std::string source_name() const = 0;
};

class HostSource {
 public:
  virtual ~HostSource() = default;
  virtual HostReading read() = 0;
};

/// One read of the server's metrics; an error leaves no sample.
using ServerSource = std::function<Result<ServerReading>()>;

struct TelemetrySources {
  std::unique_ptr<GpuSource> gpu;    ///< null: no GPU telemetry
  std::unique_ptr<HostSource> host;  ///< null: no host telemetry
  ServerSource server;               ///< empty: no server telemetry
};

}  // namespace sm
