#include "telemetry/nvml.h"

#include <dlfcn.h>

#include <algorithm>
#include <type_traits>

#include "telemetry/nvml_abi.h"

namespace sm {

// Pointer types come from the declarations in nvml_abi.h; nothing here calls NVML by name.
struct NvmlGpus::Api {
  decltype(&nvmlShutdown) shutdown = nullptr;
  decltype(&nvmlErrorString) error_string = nullptr;
  decltype(&nvmlDeviceGetName) name = nullptr;
  decltype(&nvmlDeviceGetPowerUsage) power = nullptr;
  decltype(&nvmlDeviceGetTotalEnergyConsumption) energy = nullptr;
  decltype(&nvmlDeviceGetEnforcedPowerLimit) power_limit = nullptr;
  decltype(&nvmlDeviceGetClockInfo) clock = nullptr;
  decltype(&nvmlDeviceGetMaxClockInfo) max_clock = nullptr;
  decltype(&nvmlDeviceGetTemperature) temperature = nullptr;
  decltype(&nvmlDeviceGetUtilizationRates) utilization = nullptr;
  decltype(&nvmlDeviceGetMemoryInfo) memory = nullptr;
  decltype(&nvmlDeviceGetPerformanceState) pstate = nullptr;
  decltype(&nvmlDeviceGetCurrentClocksEventReasons) clocks_event = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkGeneration) pcie_gen = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkWidth) pcie_width = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkGeneration) pcie_gen_max = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkWidth) pcie_width_max = nullptr;
  decltype(&nvmlDeviceGetUUID) uuid = nullptr;
  // The process lists: the _v3 (or _v2) entry point with the longer struct, else the first one.
  decltype(&nvmlDeviceGetComputeRunningProcesses_v3) compute = nullptr;
  decltype(&nvmlDeviceGetComputeRunningProcesses) compute_v1 = nullptr;
  decltype(&nvmlDeviceGetGraphicsRunningProcesses_v3) graphics = nullptr;
  decltype(&nvmlDeviceGetGraphicsRunningProcesses) graphics_v1 = nullptr;
};

namespace {

template <class F>
F lookup(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

/// The newer entry point when the library has it, else the older one; `used` names the one found.
template <class F>
F lookup_either(void* lib, const char* preferred, const char* fallback, const char** used) {
  if (F f = lookup<F>(lib, preferred)) {
    *used = preferred;
    return f;
  }
  *used = fallback;
  return lookup<F>(lib, fallback);
}

// One process list of `d` into `pids` through `list` (either struct version): grows the array
// while NVML says it is too small. False when NVML could not answer.
template <class Info, class F>
bool append_pids(F list, nvmlDevice_t d, std::vector<int>& pids) {
  std::vector<Info> infos(64);
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto count = static_cast<unsigned int>(infos.size());
    const nvmlReturn_t rc = list(d, &count, infos.data());
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
      infos.resize(std::max<size_t>(count + 16, infos.size() * 2));
      continue;
    }
    if (rc != NVML_SUCCESS) return false;
    for (unsigned int i = 0; i < count && i < infos.size(); ++i) pids.push_back(static_cast<int>(infos[i].pid));
    return true;
  }
  return false;
}

std::string dl_error() {
  const char* e = dlerror();
  return e != nullptr ? std::string(e) : std::string("unknown error");
}

}  // namespace

NvmlGpus::NvmlGpus() : api_(std::make_unique<Api>()) {}

NvmlGpus::~NvmlGpus() {
  if (initialised_ && api_->shutdown != nullptr) api_->shutdown();
  if (lib_ != nullptr) dlclose(lib_);
}

std::string NvmlGpus::describe(int nvml_return) const {
  std::string code = "NVML error " + std::to_string(nvml_return);
  if (api_->error_string == nullptr) return code;
  const char* words = api_->error_string(static_cast<nvmlReturn_t>(nvml_return));
  if (words == nullptr || *words == '\0') return code;
  return std::string(words) + " (" + code + ")";
}

Result<std::unique_ptr<NvmlGpus>> NvmlGpus::open(const std::string& library_path) {
  const bool default_library = library_path.empty();
  std::unique_ptr<NvmlGpus> gpus(new NvmlGpus());
  gpus->library_ = default_library ? std::string(kNvmlDefaultLibrary) : library_path;
  const std::string& lib = gpus->library_;

  dlerror();
  gpus->lib_ = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (gpus->lib_ == nullptr) {
    if (default_library) {
      return fail(
          ErrorCode::Unsupported,
          "NVML library " + lib + " not found (no NVIDIA driver on this machine?): " + dl_error());
    }
    return fail(ErrorCode::InvalidArgument, "cannot load NVML library " + lib + ": " + dl_error());
  }
  void* h = gpus->lib_;

  const char* init_name = nullptr;
  const char* count_name = nullptr;
  const char* handle_name = nullptr;
  auto init = lookup_either<decltype(&nvmlInit_v2)>(h, "nvmlInit_v2", "nvmlInit", &init_name);
  auto count = lookup_either<decltype(&nvmlDeviceGetCount_v2)>(h, "nvmlDeviceGetCount_v2",
                                                               "nvmlDeviceGetCount", &count_name);
  auto handle = lookup_either<decltype(&nvmlDeviceGetHandleByIndex_v2)>(
      h, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", &handle_name);
  if (init == nullptr || count == nullptr || handle == nullptr) {
    return fail(
        ErrorCode::Unsupported,
        lib + " is not an NVML library: it has no " +
            (init == nullptr    ? "nvmlInit_v2 or nvmlInit"
             : count == nullptr ? "nvmlDeviceGetCount_v2 or nvmlDeviceGetCount"
                                : "nvmlDeviceGetHandleByIndex_v2 or nvmlDeviceGetHandleByIndex"));
  }

  Api& api = *gpus->api_;
  api.shutdown = lookup<decltype(api.shutdown)>(h, "nvmlShutdown");
  api.error_string = lookup<decltype(api.error_string)>(h, "nvmlErrorString");

  if (nvmlReturn_t rc = init(); rc != NVML_SUCCESS) {
    return fail(ErrorCode::Unsupported,
                std::string(init_name) + " failed (" + lib + "): " + gpus->describe(rc));
  }
  gpus->initialised_ = true;

  unsigned int n = 0;
  if (nvmlReturn_t rc = count(&n); rc != NVML_SUCCESS) {
    return fail(ErrorCode::Unsupported,
                std::string(count_name) + " failed (" + lib + "): " + gpus->describe(rc));
  }
  if (n == 0) return fail(ErrorCode::Unsupported, "NVML (" + lib + ") found no GPU");

  // Every other function: looked up once; absent ones are said once in notes() and leave their
  // fields empty.
  const char* clocks_event_name = nullptr;
  api.clocks_event = lookup_either<decltype(api.clocks_event)>(
      h, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons",
      &clocks_event_name);
  struct Optional {
    const char* name;
    bool present;
    const char* leaves_empty;
  };
  auto resolve = [&](auto& slot, const char* name) {
    slot = lookup<std::remove_reference_t<decltype(slot)>>(h, name);
    return slot != nullptr;
  };
  const char* unused = nullptr;
  api.compute = lookup_either<decltype(api.compute)>(h, "nvmlDeviceGetComputeRunningProcesses_v3",
                                                     "nvmlDeviceGetComputeRunningProcesses_v2", &unused);
  api.compute_v1 = lookup<decltype(api.compute_v1)>(h, "nvmlDeviceGetComputeRunningProcesses");
  api.graphics = lookup_either<decltype(api.graphics)>(h, "nvmlDeviceGetGraphicsRunningProcesses_v3",
                                                       "nvmlDeviceGetGraphicsRunningProcesses_v2", &unused);
  api.graphics_v1 = lookup<decltype(api.graphics_v1)>(h, "nvmlDeviceGetGraphicsRunningProcesses");
  const Optional optional[] = {
      {"nvmlDeviceGetName", resolve(api.name, "nvmlDeviceGetName"), "name"},
      {"nvmlDeviceGetUUID", resolve(api.uuid, "nvmlDeviceGetUUID"), "uuid"},
      {"nvmlDeviceGetComputeRunningProcesses", api.compute != nullptr || api.compute_v1 != nullptr,
       "process list; the server's GPUs are found another way"},
      {"nvmlDeviceGetPowerUsage", resolve(api.power, "nvmlDeviceGetPowerUsage"), "power_w"},
      {"nvmlDeviceGetTotalEnergyConsumption",
       resolve(api.energy, "nvmlDeviceGetTotalEnergyConsumption"), "energy_j"},
      {"nvmlDeviceGetEnforcedPowerLimit",
       resolve(api.power_limit, "nvmlDeviceGetEnforcedPowerLimit"), "power_limit_w"},
      {"nvmlDeviceGetClockInfo", resolve(api.clock, "nvmlDeviceGetClockInfo"),
       "sm_clock_mhz, mem_clock_mhz"},
      {"nvmlDeviceGetMaxClockInfo", resolve(api.max_clock, "nvmlDeviceGetMaxClockInfo"),
       "sm_clock_max_mhz, mem_clock_max_mhz"},
      {"nvmlDeviceGetTemperature", resolve(api.temperature, "nvmlDeviceGetTemperature"), "temp_c"},
      {"nvmlDeviceGetUtilizationRates", resolve(api.utilization, "nvmlDeviceGetUtilizationRates"),
       "util_pct, mem_util_pct"},
      {"nvmlDeviceGetMemoryInfo", resolve(api.memory, "nvmlDeviceGetMemoryInfo"),
       "mem_used_bytes, mem_total_bytes"},
      {"nvmlDeviceGetPerformanceState", resolve(api.pstate, "nvmlDeviceGetPerformanceState"),
       "pstate"},
      {"nvmlDeviceGetCurrentClocksEventReasons or nvmlDeviceGetCurrentClocksThrottleReasons",
       api.clocks_event != nullptr, "clocks_event_reasons"},
      {"nvmlDeviceGetCurrPcieLinkGeneration",
       resolve(api.pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration"), "pcie_gen"},
      {"nvmlDeviceGetCurrPcieLinkWidth", resolve(api.pcie_width, "nvmlDeviceGetCurrPcieLinkWidth"),
       "pcie_width"},
      {"nvmlDeviceGetMaxPcieLinkGeneration",
       resolve(api.pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration"), "pcie_gen_max"},
      {"nvmlDeviceGetMaxPcieLinkWidth",
       resolve(api.pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth"), "pcie_width_max"},
  };
  for (const Optional& o : optional) {
    if (!o.present) {
      gpus->notes_.push_back(lib + " has no " + o.name + " (no " + o.leaves_empty + ")");
    }
  }

  std::string refused;
  for (unsigned int i = 0; i < n; ++i) {
    nvmlDevice_t d = nullptr;
    if (nvmlReturn_t rc = handle(i, &d); rc != NVML_SUCCESS || d == nullptr) {
      std::string why = std::string(handle_name) + "(" + std::to_string(i) +
                        "): " + (rc != NVML_SUCCESS ? gpus->describe(rc) : "no handle");
      gpus->notes_.push_back("GPU " + std::to_string(i) + " not read: " + why);
      if (refused.empty()) refused = why;
      continue;
    }
    gpus->devices_.push_back(Device{static_cast<int>(i), d});
  }
  if (gpus->devices_.empty()) {
    return fail(ErrorCode::Unsupported, "NVML (" + lib + ") could open none of its " +
                                            std::to_string(n) + " GPU(s): " + refused);
  }

  for (const Device& dev : gpus->devices_) {
    GpuStaticInfo info;
    info.index = dev.index;
    unsigned int v = 0;
    if (api.name != nullptr) {
      char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
      if (api.name(dev.handle, name, sizeof name) == NVML_SUCCESS) {
        name[sizeof name - 1] = '\0';
        info.name = name;
      }
    }
    if (api.uuid != nullptr) {
      char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
      if (api.uuid(dev.handle, uuid, sizeof uuid) == NVML_SUCCESS) {
        uuid[sizeof uuid - 1] = '\0';
        info.uuid = uuid;
      }
    }
    if (api.max_clock != nullptr) {
      if (api.max_clock(dev.handle, NVML_CLOCK_SM, &v) == NVML_SUCCESS) info.sm_clock_max_mhz = v;
      if (api.max_clock(dev.handle, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) info.mem_clock_max_mhz = v;
    }
    if (api.memory != nullptr) {
      nvmlMemory_t mem{};
      if (api.memory(dev.handle, &mem) == NVML_SUCCESS) {
        info.mem_total_bytes = static_cast<int64_t>(mem.total);
      }
    }
    if (api.pcie_gen_max != nullptr && api.pcie_gen_max(dev.handle, &v) == NVML_SUCCESS) {
      info.pcie_gen_max = static_cast<int>(v);
    }
    if (api.pcie_width_max != nullptr && api.pcie_width_max(dev.handle, &v) == NVML_SUCCESS) {
      info.pcie_width_max = static_cast<int>(v);
    }
    gpus->static_info_.push_back(std::move(info));
  }
  return gpus;
}

std::optional<std::vector<GpuProcesses>> NvmlGpus::processes() {
  const Api& api = *api_;
  if (api.compute == nullptr && api.compute_v1 == nullptr) return std::nullopt;
  std::vector<GpuProcesses> out;
  bool any_answer = false;
  for (const Device& dev : devices_) {
    GpuProcesses p;
    p.index = dev.index;
    bool answered = api.compute != nullptr ? append_pids<nvmlProcessInfo_t>(api.compute, dev.handle, p.pids)
                                           : append_pids<nvmlProcessInfo_v1_t>(api.compute_v1, dev.handle, p.pids);
    if (api.graphics != nullptr) answered |= append_pids<nvmlProcessInfo_t>(api.graphics, dev.handle, p.pids);
    else if (api.graphics_v1 != nullptr) answered |= append_pids<nvmlProcessInfo_v1_t>(api.graphics_v1, dev.handle, p.pids);
    any_answer |= answered;
    out.push_back(std::move(p));
  }
  if (!any_answer) return std::nullopt;
  return out;
}

void NvmlGpus::read(std::vector<GpuReading>& out) {
  const Api& api = *api_;
  out.resize(devices_.size());
  for (size_t i = 0; i < devices_.size(); ++i) {
    const nvmlDevice_t d = devices_[i].handle;
    GpuReading& r = out[i];
    r = GpuReading{};
    r.index = devices_[i].index;
    unsigned int v = 0;
    unsigned long long v64 = 0;
    if (api.power != nullptr && api.power(d, &v) == NVML_SUCCESS) r.power_w = v / 1000.0;
    if (api.energy != nullptr && api.energy(d, &v64) == NVML_SUCCESS) r.energy_j = v64 / 1000.0;
    if (api.clock != nullptr) {
      if (api.clock(d, NVML_CLOCK_SM, &v) == NVML_SUCCESS) r.sm_clock_mhz = v;
      if (api.clock(d, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) r.mem_clock_mhz = v;
    }
    if (api.temperature != nullptr &&
        api.temperature(d, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) {
      r.temp_c = v;
    }
    if (api.utilization != nullptr) {
      nvmlUtilization_t u{};
      if (api.utilization(d, &u) == NVML_SUCCESS) {
        r.util_pct = u.gpu;
        r.mem_util_pct = u.memory;
      }
    }
    if (api.memory != nullptr) {
      nvmlMemory_t mem{};
      if (api.memory(d, &mem) == NVML_SUCCESS) r.mem_used_bytes = static_cast<int64_t>(mem.used);
    }
    if (api.pstate != nullptr) {
      nvmlPstates_t p = NVML_PSTATE_UNKNOWN;
      if (api.pstate(d, &p) == NVML_SUCCESS && p >= NVML_PSTATE_0 && p <= NVML_PSTATE_15) {
        r.pstate = static_cast<int>(p);
      }
    }
    if (api.clocks_event != nullptr && api.clocks_event(d, &v64) == NVML_SUCCESS) {
      r.clocks_event_reasons = static_cast<uint64_t>(v64);
    }
    if (api.pcie_gen != nullptr && api.pcie_gen(d, &v) == NVML_SUCCESS)
      r.pcie_gen = static_cast<int>(v);
    if (api.pcie_width != nullptr && api.pcie_width(d, &v) == NVML_SUCCESS) {
      r.pcie_width = static_cast<int>(v);
    }
    if (api.power_limit != nullptr && api.power_limit(d, &v) == NVML_SUCCESS) {
      r.power_limit_w = v / 1000.0;
    }
  }
}

}  // namespace sm
