#pragma once
// This machine's NVIDIA GPUs through NVML, NVIDIA's management library, loaded at run time:
// dlopen("libnvidia-ml.so.1") (or the file --nvml-lib names), no build or package dependency.
// Each function is looked up on its own; one the library lacks, or that answers anything but
// NVML_SUCCESS (NOT_SUPPORTED on GeForce, NO_PERMISSION, GPU_IS_LOST, ...), leaves its field
// empty and nothing else fails. Where nvml.h has a newer entry point it is preferred and the
// older name is the fallback: nvmlInit_v2 / nvmlInit, nvmlDeviceGetCount_v2 / ...GetCount,
// nvmlDeviceGetHandleByIndex_v2 / ...ByIndex, nvmlDeviceGetCurrentClocksEventReasons /
// ...CurrentClocksThrottleReasons (drivers before 535).
//
// Where each field comes from (GpuReading, telemetry_types.h), read for every GPU on each read():
//   power_w              nvmlDeviceGetPowerUsage: board power draw, mW / 1000
//   energy_j             nvmlDeviceGetTotalEnergyConsumption: energy since the driver loaded,
//                        mJ / 1000 (Volta and later); a counter: a window's energy is the
//                        difference of two readings
//   sm_clock_mhz         nvmlDeviceGetClockInfo(NVML_CLOCK_SM), MHz
//   mem_clock_mhz        nvmlDeviceGetClockInfo(NVML_CLOCK_MEM), MHz
//   temp_c               nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU), °C (the GPU die)
//   util_pct             nvmlDeviceGetUtilizationRates .gpu: % of the last sample period (1/6 s
//                        to 1 s, by product) during which a kernel ran
//   mem_util_pct         nvmlDeviceGetUtilizationRates .memory: % of that period during which
//                        device memory was read or written
//   mem_used_bytes       nvmlDeviceGetMemoryInfo .used, bytes (includes the driver's reserve)
//   pstate               nvmlDeviceGetPerformanceState: 0 (P0, full speed) ... 15; unknown (32)
//                        leaves it empty
//   clocks_event_reasons nvmlDeviceGetCurrentClocksEventReasons (or ...ThrottleReasons): the
//                        clocks_event bits active now (power cap, thermal, hardware slowdown, ...)
//   pcie_gen, pcie_width nvmlDeviceGetCurrPcieLinkGeneration / ...CurrPcieLinkWidth: the link
//                        now (an idle GPU may train down to Gen1)
//   power_limit_w        nvmlDeviceGetEnforcedPowerLimit: the limit in force, mW / 1000
// and once, when the library is opened (GpuStaticInfo):
//   name                 nvmlDeviceGetName (empty when it fails)
//   uuid                 nvmlDeviceGetUUID: "GPU-…", as CUDA_VISIBLE_DEVICES also names a GPU
//   sm_clock_max_mhz     nvmlDeviceGetMaxClockInfo(NVML_CLOCK_SM), MHz
//   mem_clock_max_mhz    nvmlDeviceGetMaxClockInfo(NVML_CLOCK_MEM), MHz
//   mem_total_bytes      nvmlDeviceGetMemoryInfo .total, bytes
//   pcie_gen_max, pcie_width_max  nvmlDeviceGetMaxPcieLinkGeneration / ...Width: the most the
//                        device and its slot allow together
// `index` is NVML's device index (the order nvidia-smi lists; CUDA_VISIBLE_DEVICES is ignored).
//
// Threads: open() and the destructor on one thread; read() may then be called from another (the
// sampler's), as often as every 0.5 s: it resolves nothing, allocates nothing once `out` has
// one slot per GPU, and makes about 15 NVML calls per GPU. NVML itself is thread-safe.
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "telemetry/telemetry_sources.h"
#include "result/telemetry_types.h"

struct nvmlDevice_st;  // NVML's opaque device (telemetry/nvml_abi.h)

namespace sm {

/// What open("") loads: the soname the NVIDIA driver installs.
inline constexpr const char* kNvmlDefaultLibrary = "libnvidia-ml.so.1";

/// The GPU source of a run's telemetry recorder (telemetry_sources.h):
/// `Result<std::unique_ptr<GpuSource>> gpus = NvmlGpus::open(path);`
class NvmlGpus final : public GpuSource {
 public:
  /// Loads the library (`library_path`, or kNvmlDefaultLibrary when empty), initialises NVML and
  /// opens every GPU. Errors say why there is no GPU telemetry: the library cannot be loaded
  /// (naming the file; Unsupported for the default library, InvalidArgument for a path the user
  /// gave), it is not NVML (no nvmlInit), nvmlInit failed (with NVML's own words when the
  /// library has nvmlErrorString), or NVML sees no GPU. Never throws.
  static Result<std::unique_ptr<NvmlGpus>> open(const std::string& library_path);

  /// nvmlShutdown, then unloads the library.
  ~NvmlGpus() override;
  NvmlGpus(const NvmlGpus&) = delete;
  NvmlGpus& operator=(const NvmlGpus&) = delete;

  /// GPUs being read (NVML's count less any whose handle NVML refused; see notes()).
  int device_count() const { return static_cast<int>(devices_.size()); }

  /// Each GPU's fixed facts, read once at open(), in the order read() fills readings.
  std::vector<GpuStaticInfo> static_info() override { return static_info_; }

  /// One reading per GPU into `out` (resized to device_count(); each slot reset, then filled
  /// with what NVML answers now). Not stamped: the caller stamps the sample.
  void read(std::vector<GpuReading>& out) override;

  /// Each GPU's processes now (docs/METRICS.md, "The server's GPUs"): the compute contexts
  /// (nvmlDeviceGetComputeRunningProcesses_v3, _v2 or the first version) and the graphics ones
  /// (a Vulkan server; ...GraphicsRunningProcesses). std::nullopt when the library has no
  /// process list or answered for no GPU. Called once, at a run's start (it allocates).
  std::optional<std::vector<GpuProcesses>> processes() override;
  std::string source_name() const override { return "nvml"; }

  /// The library file as given to dlopen.
  const std::string& library() const { return library_; }

  /// What this library cannot say, in words, for the run's log: functions it lacks (and so the
  /// fields that will stay empty), GPUs that could not be opened. Empty when all is there.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  struct Api;  // the library's functions, resolved once
  struct Device {
    int index = 0;                    // NVML's index
    nvmlDevice_st* handle = nullptr;  // nvmlDevice_t, valid until nvmlShutdown
  };

  NvmlGpus();
  std::string describe(int nvml_return) const;

  void* lib_ = nullptr;
  bool initialised_ = false;
  std::string library_;
  std::unique_ptr<Api> api_;
  std::vector<Device> devices_;
  std::vector<GpuStaticInfo> static_info_;
  std::vector<std::string> notes_;
};

}  // namespace sm
