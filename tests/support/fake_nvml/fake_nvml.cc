// The fake NVML library: NVML's C ABI (telemetry/nvml_abi.h declares every function defined here,
// so the compiler holds these definitions to NVML's signatures), answering from a script
// (fake_nvml.h). Built twice: libfake_nvml.so with everything, and, with FAKE_NVML_OLD,
// libfake_nvml_old.so, which lacks what an old driver's library lacks. Only nvml* and fake_nvml_*
// are exported (exports.map).
#include "fake_nvml.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

#include "fake_script.h"
#include "telemetry/nvml_abi.h"

namespace {

using fake_nvml::FakeGpu;
using fake_nvml::Script;

constexpr size_t kMaxGpus = 64;

struct State {
  std::mutex mu;
  std::optional<Script> in_process;  ///< fake_nvml_set_script's, over the file
  Script script;                     ///< what the GPUs say while initialised
  int init_count = 0;
  double t0_s = 0;                   ///< CLOCK_MONOTONIC at the later of init and set_script
  std::optional<double> now_override_s;
  std::string last_error;            ///< the last script failure
  std::string error_text;            ///< nvmlErrorString's answer (kept alive)
  std::map<std::string, long long> calls;
};

State& state() {
  static State s;
  return s;
}

// Handles are addresses in this array, so a new script never leaves a dangling one.
char g_handle_slots[kMaxGpus];

double monotonic_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// The fake's clock; caller holds the lock.
double now_s(const State& s) {
  double t = s.now_override_s ? *s.now_override_s
             : s.script.now_s ? *s.script.now_s
                              : monotonic_s() - s.t0_s;
  return std::max(0.0, t);
}

void count_call(State& s, const char* function) { ++s.calls[function]; }

[[maybe_unused]] const char* standard_error_string(int rc) {
  switch (rc) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED: return "Already Initialized";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_INSUFFICIENT_POWER: return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    case NVML_ERROR_IRQ_ISSUE: return "Interrupt request issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    case NVML_ERROR_CORRUPTED_INFOROM: return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_UNKNOWN: return "Unknown Error";
    default: return "Unknown Error";
  }
}

/// Loads the script file named by the environment; caller holds the lock.
nvmlReturn_t load_script_file(State& s) {
  const char* path = std::getenv(kFakeNvmlScriptEnv);
  if (path == nullptr || *path == '\0') {
    s.last_error = std::string("fake NVML: ") + kFakeNvmlScriptEnv + " is not set";
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  std::ifstream in(path);
  if (!in) {
    s.last_error = std::string("fake NVML: cannot read the script ") + path;
    return NVML_ERROR_UNKNOWN;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string why;
  auto script = fake_nvml::parse_script(text.str(), why);
  if (!script) {
    s.last_error = std::string("fake NVML: ") + path + ": " + why;
    return NVML_ERROR_UNKNOWN;
  }
  s.last_error.clear();
  s.script = std::move(*script);
  return NVML_SUCCESS;
}

nvmlReturn_t init(const char* function) {
  State& s = state();
  std::lock_guard lock(s.mu);
  count_call(s, function);
  if (s.init_count > 0) {
    ++s.init_count;
    return NVML_SUCCESS;
  }
  if (s.in_process) {
    s.script = *s.in_process;
  } else if (nvmlReturn_t rc = load_script_file(s); rc != NVML_SUCCESS) {
    return rc;
  }
  if (s.script.init_error && *s.script.init_error != NVML_SUCCESS) {
    return static_cast<nvmlReturn_t>(*s.script.init_error);
  }
  ++s.init_count;
  s.t0_s = monotonic_s();
  return NVML_SUCCESS;
}

nvmlReturn_t device_count(const char* function, unsigned int* count) {
  State& s = state();
  std::lock_guard lock(s.mu);
  count_call(s, function);
  if (s.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (int rc = fake_nvml::scripted_error(s.script, nullptr, function)) return static_cast<nvmlReturn_t>(rc);
  *count = static_cast<unsigned int>(std::min(s.script.gpus.size(), kMaxGpus));
  return NVML_SUCCESS;
}

nvmlReturn_t handle_by_index(const char* function, unsigned int index, nvmlDevice_t* device) {
  State& s = state();
  std::lock_guard lock(s.mu);
  count_call(s, function);
  if (s.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (device == nullptr || index >= std::min(s.script.gpus.size(), kMaxGpus)) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  if (int rc = fake_nvml::scripted_error(s.script, &s.script.gpus[index], function)) {
    return static_cast<nvmlReturn_t>(rc);
  }
  *device = reinterpret_cast<nvmlDevice_t>(&g_handle_slots[index]);
  return NVML_SUCCESS;
}

/// Runs `answer(gpu, t_s)` for a device query under the lock, after the checks every NVML device
/// function makes and the script's errors for `function`.
template <class F>
nvmlReturn_t query(const char* function, nvmlDevice_t device, const void* out, F answer) {
  State& s = state();
  std::lock_guard lock(s.mu);
  count_call(s, function);
  if (s.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  const char* slot = reinterpret_cast<const char*>(device);
  if (slot < g_handle_slots || slot >= g_handle_slots + kMaxGpus || out == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  const size_t index = static_cast<size_t>(slot - g_handle_slots);
  if (index >= s.script.gpus.size()) return NVML_ERROR_INVALID_ARGUMENT;
  const FakeGpu& gpu = s.script.gpus[index];
  if (int rc = fake_nvml::scripted_error(s.script, &gpu, function)) return static_cast<nvmlReturn_t>(rc);
  return answer(gpu, now_s(s));
}

unsigned int rounded(double v) { return static_cast<unsigned int>(std::llround(std::max(0.0, v))); }

/// Writes a present value (rounded) or answers NOT_SUPPORTED.
template <class T>
nvmlReturn_t put(const std::optional<T>& v, unsigned int* out, double scale = 1) {
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *out = rounded(static_cast<double>(*v) * scale);
  return NVML_SUCCESS;
}

nvmlReturn_t put_ramp(const std::optional<fake_nvml::Ramp>& r, double t_s, unsigned int* out,
                      double scale = 1) {
  if (!r) return NVML_ERROR_NOT_SUPPORTED;
  *out = rounded(r->at(t_s) * scale);
  return NVML_SUCCESS;
}

/// A process list: NVML's protocol of a caller-sized array (INSUFFICIENT_SIZE with the count
/// needed when it is too small).
template <class Info>
nvmlReturn_t process_list(const char* function, nvmlDevice_t device, unsigned int* count, Info* infos,
                          std::optional<std::vector<int>> FakeGpu::*list) {
  return query(function, device, count, [&](const FakeGpu& g, double) {
    if (!(g.*list)) return NVML_ERROR_NOT_SUPPORTED;
    const auto& pids = *(g.*list);
    if (*count < pids.size()) {
      *count = static_cast<unsigned int>(pids.size());
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (infos == nullptr && !pids.empty()) return NVML_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < pids.size(); ++i) {
      infos[i] = Info{};
      infos[i].pid = static_cast<unsigned int>(pids[i]);
      infos[i].usedGpuMemory = 1ULL << 30;
    }
    *count = static_cast<unsigned int>(pids.size());
    return NVML_SUCCESS;
  });
}

nvmlReturn_t clocks_event(const char* function, nvmlDevice_t device, unsigned long long* bits) {
  return query(function, device, bits, [&](const FakeGpu& g, double t) {
    if (!g.clocks_event_reasons) return NVML_ERROR_NOT_SUPPORTED;
    *bits = g.clocks_event_reasons_at(t);
    return NVML_SUCCESS;
  });
}

}  // namespace

// ---- NVML's C ABI ----------------------------------------------------------------------------

extern "C" {

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlInit_v2(void) { return init("nvmlInit_v2"); }
#endif
nvmlReturn_t nvmlInit(void) { return init("nvmlInit"); }

nvmlReturn_t nvmlShutdown(void) {
  State& s = state();
  std::lock_guard lock(s.mu);
  count_call(s, "nvmlShutdown");
  if (s.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  --s.init_count;
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
const char* nvmlErrorString(nvmlReturn_t result) {
  State& s = state();
  std::lock_guard lock(s.mu);
  s.error_text = standard_error_string(result);
  if (!s.last_error.empty() &&
      (result == NVML_ERROR_UNKNOWN || result == NVML_ERROR_DRIVER_NOT_LOADED)) {
    s.error_text += " (" + s.last_error + ")";
  }
  return s.error_text.c_str();
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  return device_count("nvmlDeviceGetCount_v2", count);
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  return handle_by_index("nvmlDeviceGetHandleByIndex_v2", index, device);
}
#endif
nvmlReturn_t nvmlDeviceGetCount(unsigned int* count) { return device_count("nvmlDeviceGetCount", count); }
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t* device) {
  return handle_by_index("nvmlDeviceGetHandleByIndex", index, device);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  return query("nvmlDeviceGetName", device, name, [&](const FakeGpu& g, double) {
    if (!g.name) return NVML_ERROR_NOT_SUPPORTED;
    if (g.name->size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    std::copy(g.name->begin(), g.name->end(), name);
    name[g.name->size()] = '\0';
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  return query("nvmlDeviceGetUUID", device, uuid, [&](const FakeGpu& g, double) {
    if (!g.uuid) return NVML_ERROR_NOT_SUPPORTED;
    if (g.uuid->size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    std::copy(g.uuid->begin(), g.uuid->end(), uuid);
    uuid[g.uuid->size()] = '\0';
    return NVML_SUCCESS;
  });
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* infoCount,
                                                     nvmlProcessInfo_t* infos) {
  return process_list("nvmlDeviceGetComputeRunningProcesses_v3", device, infoCount, infos, &FakeGpu::processes);
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int* infoCount,
                                                     nvmlProcessInfo_t* infos) {
  return process_list("nvmlDeviceGetComputeRunningProcesses_v2", device, infoCount, infos, &FakeGpu::processes);
}
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int* infoCount,
                                                      nvmlProcessInfo_t* infos) {
  return process_list("nvmlDeviceGetGraphicsRunningProcesses_v3", device, infoCount, infos,
                      &FakeGpu::graphics_processes);
}
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int* infoCount,
                                                      nvmlProcessInfo_t* infos) {
  return process_list("nvmlDeviceGetGraphicsRunningProcesses_v2", device, infoCount, infos,
                      &FakeGpu::graphics_processes);
}
#endif
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int* infoCount,
                                                  nvmlProcessInfo_v1_t* infos) {
  return process_list("nvmlDeviceGetComputeRunningProcesses", device, infoCount, infos, &FakeGpu::processes);
}
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int* infoCount,
                                                   nvmlProcessInfo_v1_t* infos) {
  return process_list("nvmlDeviceGetGraphicsRunningProcesses", device, infoCount, infos,
                      &FakeGpu::graphics_processes);
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
  return query("nvmlDeviceGetPowerUsage", device, power,
               [&](const FakeGpu& g, double t) { return put_ramp(g.power_w, t, power, 1000); });
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long* energy) {
  return query("nvmlDeviceGetTotalEnergyConsumption", device, energy, [&](const FakeGpu& g, double t) {
    std::optional<double> j = g.energy_j_at(t);
    if (!j) return NVML_ERROR_NOT_SUPPORTED;
    *energy = static_cast<unsigned long long>(std::llround(std::max(0.0, *j) * 1000));
    return NVML_SUCCESS;
  });
}
#endif

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int* limit) {
  return query("nvmlDeviceGetEnforcedPowerLimit", device, limit,
               [&](const FakeGpu& g, double) { return put(g.power_limit_w, limit, 1000); });
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock) {
  return query("nvmlDeviceGetClockInfo", device, clock, [&](const FakeGpu& g, double t) {
    switch (type) {
      case NVML_CLOCK_GRAPHICS:  // the same domain as SM on every current GPU
      case NVML_CLOCK_SM: return put_ramp(g.sm_clock_mhz, t, clock);
      case NVML_CLOCK_MEM: return put_ramp(g.mem_clock_mhz, t, clock);
      case NVML_CLOCK_VIDEO: return NVML_ERROR_NOT_SUPPORTED;
    }
    return NVML_ERROR_INVALID_ARGUMENT;
  });
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock) {
  return query("nvmlDeviceGetMaxClockInfo", device, clock, [&](const FakeGpu& g, double) {
    switch (type) {
      case NVML_CLOCK_GRAPHICS:
      case NVML_CLOCK_SM: return put(g.sm_clock_max_mhz, clock);
      case NVML_CLOCK_MEM: return put(g.mem_clock_max_mhz, clock);
      case NVML_CLOCK_VIDEO: return NVML_ERROR_NOT_SUPPORTED;
    }
    return NVML_ERROR_INVALID_ARGUMENT;
  });
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
                                      unsigned int* temp) {
  return query("nvmlDeviceGetTemperature", device, temp, [&](const FakeGpu& g, double t) {
    if (sensorType != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    return put_ramp(g.temp_c, t, temp);
  });
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) {
  return query("nvmlDeviceGetUtilizationRates", device, utilization, [&](const FakeGpu& g, double t) {
    if (!g.util_pct || !g.mem_util_pct) return NVML_ERROR_NOT_SUPPORTED;
    utilization->gpu = rounded(g.util_pct->at(t));
    utilization->memory = rounded(g.mem_util_pct->at(t));
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  return query("nvmlDeviceGetMemoryInfo", device, memory, [&](const FakeGpu& g, double) {
    if (!g.mem_total_bytes || !g.mem_used_bytes) return NVML_ERROR_NOT_SUPPORTED;
    memory->total = *g.mem_total_bytes;
    memory->used = *g.mem_used_bytes;
    memory->free = *g.mem_total_bytes > *g.mem_used_bytes ? *g.mem_total_bytes - *g.mem_used_bytes : 0;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t* pState) {
  return query("nvmlDeviceGetPerformanceState", device, pState, [&](const FakeGpu& g, double) {
    if (!g.pstate) return NVML_ERROR_NOT_SUPPORTED;
    *pState = static_cast<nvmlPstates_t>(*g.pstate);
    return NVML_SUCCESS;
  });
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
                                                    unsigned long long* clocksEventReasons) {
  return clocks_event("nvmlDeviceGetCurrentClocksEventReasons", device, clocksEventReasons);
}
#endif
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                       unsigned long long* clocksThrottleReasons) {
  return clocks_event("nvmlDeviceGetCurrentClocksThrottleReasons", device, clocksThrottleReasons);
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int* currLinkGen) {
  return query("nvmlDeviceGetCurrPcieLinkGeneration", device, currLinkGen,
               [&](const FakeGpu& g, double) { return put(g.pcie_gen, currLinkGen); });
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int* currLinkWidth) {
  return query("nvmlDeviceGetCurrPcieLinkWidth", device, currLinkWidth,
               [&](const FakeGpu& g, double) { return put(g.pcie_width, currLinkWidth); });
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* maxLinkGen) {
  return query("nvmlDeviceGetMaxPcieLinkGeneration", device, maxLinkGen,
               [&](const FakeGpu& g, double) { return put(g.pcie_gen_max, maxLinkGen); });
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int* maxLinkWidth) {
  return query("nvmlDeviceGetMaxPcieLinkWidth", device, maxLinkWidth,
               [&](const FakeGpu& g, double) { return put(g.pcie_width_max, maxLinkWidth); });
}
#endif

// ---- control, for tests ----------------------------------------------------------------------

int fake_nvml_set_script(const char* json) {
  State& s = state();
  std::lock_guard lock(s.mu);
  if (json == nullptr) {
    s.in_process.reset();
    s.last_error.clear();
    return 0;
  }
  std::string why;
  auto script = fake_nvml::parse_script(json, why);
  if (!script) {
    s.last_error = "fake NVML: " + why;
    return -1;
  }
  s.last_error.clear();
  s.in_process = *script;
  if (s.init_count > 0) s.script = std::move(*script);  // GPUs answer the new script at once
  s.t0_s = monotonic_s();
  return 0;
}

const char* fake_nvml_last_error(void) {
  State& s = state();
  std::lock_guard lock(s.mu);
  return s.last_error.c_str();
}

void fake_nvml_set_now_s(double t_s) {
  State& s = state();
  std::lock_guard lock(s.mu);
  if (t_s < 0) s.now_override_s.reset();
  else s.now_override_s = t_s;
}

long long fake_nvml_calls(const char* function) {
  State& s = state();
  std::lock_guard lock(s.mu);
  auto it = s.calls.find(function != nullptr ? function : "");
  return it == s.calls.end() ? 0 : it->second;
}

void fake_nvml_reset_calls(void) {
  State& s = state();
  std::lock_guard lock(s.mu);
  s.calls.clear();
}

}  // extern "C"
