#pragma once
// Which of this machine's GPUs the server uses (docs/METRICS.md, "The server's GPUs"), so that a
// one-GPU server on an eight-GPU box is recorded, powered and judged as one GPU: the hardware
// list, power, energy, tokens per joule and the throttle verdict count these GPUs only.
//
// From the strongest evidence to the weakest, the first that names a GPU decides:
//   1. declared: --server-gpus 0,3 (NVML indices, as nvidia-smi numbers them, or "GPU-…" UUIDs);
//   2. process_list: the GPUs whose driver process list (NVML's compute and graphics contexts)
//      holds a process of the server's process tree on this machine;
//   3. visible_devices: CUDA_VISIBLE_DEVICES (or HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES) in
//      the server's own environment (/proc/PID/environ of its processes): indices or UUIDs; an
//      empty value means the server sees no GPU at all;
//   4. all: nothing said which, so every GPU counts (a note says so when there are several).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "result/telemetry_types.h"
#include "telemetry/telemetry_sources.h"

namespace sm {

/// The environment variables that restrict a process's GPUs, in the order they are looked at.
inline constexpr std::string_view kVisibleDevicesVariables[] = {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                                                                 "ROCR_VISIBLE_DEVICES"};

struct ServerGpuEvidence {
  std::vector<std::string> declared;  ///< --server-gpus, split at commas; empty: not declared
  std::optional<std::vector<GpuProcesses>> processes;  ///< the GPUs' process lists, when the source has them
  std::vector<int> server_pids;       ///< the server's processes on this machine; empty: not known
  /// A visible-devices variable set in the server's environment: (name, value).
  std::optional<std::pair<std::string, std::string>> visible_devices;
  std::string cuda_device_order;      ///< CUDA_DEVICE_ORDER in the server's environment
};

struct ServerGpus {
  std::vector<int> indices;  ///< the server's GPUs, in the machine's order; empty: it uses none
  std::string source;        ///< "declared", "process_list", "visible_devices" or "all"
  std::string detail;        ///< how, in words: "NVML lists the server's process 4242 on GPU 3"
  std::vector<std::string> notes;  ///< what the run should say (an ambiguous order, a MIG id, ...)
};

/// The server's GPUs among `gpus`. Fails only on a declaration that names no GPU of this machine
/// (InvalidArgument, listing the GPUs there are).
Result<ServerGpus> choose_server_gpus(const ServerGpuEvidence& evidence, std::span<const GpuStaticInfo> gpus);

/// "0,3" or "GPU-5c2f…,GPU-77…" split at commas, blanks trimmed, empty items dropped.
std::vector<std::string> split_gpu_list(std::string_view text);

/// The evidence of the server's own environment: the first of kVisibleDevicesVariables set in any
/// of `pids` (the last process in the list that has it: a launch shell's child over the shell),
/// and CUDA_DEVICE_ORDER. Reads /proc/PID/environ under `root`.
void read_server_gpu_environment(std::span<const int> pids, ServerGpuEvidence& evidence, const std::string& root = "/");

}  // namespace sm
