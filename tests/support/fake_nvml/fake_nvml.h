#pragma once
// The fake NVML library (libfake_nvml.so, and libfake_nvml_old.so: an old driver's library without
// the _v2 entry points, nvmlErrorString, the energy counter, nvmlDeviceGetCurrentClocksEventReasons
// and the PCIe link functions). Same C ABI as libnvidia-ml.so.1 (telemetry/nvml_abi.h); its GPUs
// say what a JSON script says. Load it with `speedmatrix run --nvml-lib PATH`; unit tests get the
// paths as FAKE_NVML_PATH and FAKE_NVML_OLD_PATH.
//
// The script: the file named by SPEEDMATRIX_FAKE_NVML_SCRIPT, read at nvmlInit (when NVML goes
// from uninitialised to initialised), or the text given in-process to fake_nvml_set_script, which
// wins over the file until it is cleared. Unknown keys are an error (nvmlInit answers
// NVML_ERROR_UNKNOWN and nvmlErrorString says why); so is no script at all (DRIVER_NOT_LOADED).
//
//   {
//     "init_error": 9,            nvmlInit answers this code (and initialises nothing)
//     "now_s": 12.5,              the fake's clock, fixed (default: CLOCK_MONOTONIC seconds since
//                                 NVML was initialised or the script last set in-process,
//                                 whichever came later)
//     "errors": {"nvmlDeviceGetCount": 999},   functions that answer a code (all GPUs); a name
//                                 without "_v2" covers both entry points
//     "not_supported": ["nvmlDeviceGetTemperature"],   shorthand for errors: 3 (NOT_SUPPORTED)
//     "gpus": [{                  one object per GPU, NVML index = position
//       "name": "NVIDIA GeForce RTX 3090",
//       "uuid": "GPU-5c2f…",       nvmlDeviceGetUUID
//       "processes": [4242],       PIDs of nvmlDeviceGetComputeRunningProcesses(_v2, _v3)
//       "graphics_processes": [],  ... and of nvmlDeviceGetGraphicsRunningProcesses(_v2, _v3)
//       "mem_total_bytes": 25769803776, "mem_used_bytes": 1073741824,
//       "sm_clock_mhz": 1695, "mem_clock_mhz": 9751,      (*)
//       "sm_clock_max_mhz": 2100, "mem_clock_max_mhz": 9751,
//       "temp_c": 65, "util_pct": 97, "mem_util_pct": 40,  (*)
//       "pstate": 2,
//       "pcie_gen": 4, "pcie_width": 16, "pcie_gen_max": 4, "pcie_width_max": 16,
//       "power_limit_w": 350,
//       "power_w": {"from": 100, "to": 350, "over_s": 10}, (*)
//       "energy_start_j": 5000,   the energy counter at t = 0; it then grows by the exact integral
//                                 of power_w (no power_w: no energy counter either)
//       "clocks_event_reasons": [{"from_s": 0, "bits": 0}, {"from_s": 5, "bits": 4}],
//                                 or one number; the entry with the latest from_s <= t applies
//                                 (none yet: 0)
//       "errors": {...}, "not_supported": [...]   as above, for this GPU only
//     }]
//   }
//
// (*) a number, or a ramp {"from": A, "to": B, "over_s": S}: A + (B - A) * min(1, t / S).
// A field the GPU's object leaves out makes its function answer NOT_SUPPORTED. NVML's integer
// units are rounded to the nearest: W -> mW, J -> mJ, MHz, °C, %.

extern "C" {
/// Replaces the script with `json` (null: forget it and read the file again at the next
/// nvmlInit). 0 on success; -1 when it cannot be parsed (fake_nvml_last_error says why), leaving
/// the previous script.
int fake_nvml_set_script(const char* json);
/// Why the last fake_nvml_set_script or script file failed ("" when it did not).
const char* fake_nvml_last_error(void);
/// Fixes the fake's clock at `t_s` seconds, over the script's now_s; negative: unfix it.
void fake_nvml_set_now_s(double t_s);
/// How many times an NVML function (its exact exported name) was called since the last reset.
long long fake_nvml_calls(const char* function);
void fake_nvml_reset_calls(void);
}

/// The environment variable that names the script file.
inline constexpr const char* kFakeNvmlScriptEnv = "SPEEDMATRIX_FAKE_NVML_SCRIPT";
