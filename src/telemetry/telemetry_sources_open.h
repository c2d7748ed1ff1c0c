#pragma once
// The production telemetry sources: NVML, else amdgpu's sysfs files, for the GPUs; /proc and /sys
// for the host; the engine's metrics endpoint for the server.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "engines/engine_kind.h"
#include "engines/probe.h"
#include "telemetry/telemetry_sources.h"

namespace sm {

/// The GPUs through NVML loaded at run time (`nvml_path` empty: libnvidia-ml.so.1); where NVML
/// cannot open (no library, no driver, no GPU), the AMD GPUs of amdgpu's sysfs files under
/// `sys_root` ("/" in a run; tests give a fixture or an empty folder, so that a machine's own
/// GPUs never answer them). Errors are NVML's, which say why there is no GPU telemetry.
Result<std::unique_ptr<GpuSource>> open_gpu_source(const std::string& nvml_path,
                                                   const std::filesystem::path& sys_root = "/");
/// This machine's CPU utilisation, frequency and temperature under `root` ("/" in a run), and
/// with `own_pids` (speedmatrix, a server on this machine and its children) the share other
/// processes used; null when not even /proc/stat can be read.
std::unique_ptr<HostSource> open_host_source(const std::string& root, std::vector<int> own_pids = {});
/// The server's metrics; empty when the engine exports none that can be read.
ServerSource open_server_source(EngineKind kind, const std::string& base_url, const std::vector<std::string>& headers,
                                const HttpTransport& transport);

}  // namespace sm
