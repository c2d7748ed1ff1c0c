#pragma once
// What the telemetry sampler reads, one moment at a time: GPUs (NVML), the host (/proc, /sys) and
// the server (its Prometheus /metrics). Every field is optional: a function the library lacks, a
// file the kernel does not expose or a metric the engine does not export leaves it empty, and
// nothing else fails. Stamped on the run's monotonic clock, like every cell's window.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sm {

/// NVML clocks-event (throttle) reason bits (nvml.h nvmlClocksEventReason*, formerly
/// nvmlClocksThrottleReason*; the values are the same in both names).
namespace clocks_event {
constexpr uint64_t kGpuIdle = 0x1;
constexpr uint64_t kApplicationsClocksSetting = 0x2;
constexpr uint64_t kSwPowerCap = 0x4;
constexpr uint64_t kHwSlowdown = 0x8;
constexpr uint64_t kSyncBoost = 0x10;
constexpr uint64_t kSwThermalSlowdown = 0x20;
constexpr uint64_t kHwThermalSlowdown = 0x40;
constexpr uint64_t kHwPowerBrakeSlowdown = 0x80;
constexpr uint64_t kDisplayClockSetting = 0x100;
}  // namespace clocks_event

/// One GPU at one moment.
struct GpuReading {
  int index = 0;                             ///< NVML device index
  std::optional<double> power_w;             ///< board power draw (nvmlDeviceGetPowerUsage, mW / 1000)
  std::optional<double> energy_j;            ///< energy counter since the driver loaded (mJ / 1000)
  std::optional<double> sm_clock_mhz;        ///< current SM clock
  std::optional<double> mem_clock_mhz;       ///< current memory clock
  std::optional<double> temp_c;              ///< GPU core temperature
  std::optional<double> util_pct;            ///< GPU utilisation (share of time a kernel ran)
  std::optional<double> mem_util_pct;        ///< memory-controller utilisation
  std::optional<int64_t> mem_used_bytes;     ///< device memory in use
  std::optional<int> pstate;                 ///< performance state: 0 = P0 (full speed) ... 15
  std::optional<uint64_t> clocks_event_reasons;  ///< clocks_event bits active now
  std::optional<int> pcie_gen;               ///< current PCIe link generation
  std::optional<int> pcie_width;             ///< current PCIe link width (lanes)
  std::optional<double> power_limit_w;       ///< enforced power limit
};

/// What a GPU says once (does not change during a run).
struct GpuStaticInfo {
  int index = 0;
  std::string name;                          ///< e.g. "NVIDIA GeForce RTX 3090"
  std::string uuid;                          ///< "GPU-…" (nvmlDeviceGetUUID); empty when unknown
  std::optional<double> sm_clock_max_mhz;    ///< nvmlDeviceGetMaxClockInfo(SM)
  std::optional<double> mem_clock_max_mhz;   ///< nvmlDeviceGetMaxClockInfo(MEM)
  std::optional<int64_t> mem_total_bytes;
  std::optional<int> pcie_gen_max;
  std::optional<int> pcie_width_max;
};

/// The host at one moment (the machine speedmatrix runs on).
struct HostReading {
  std::optional<double> cpu_util_pct;  ///< all CPUs busy share since the previous reading (/proc/stat), 0–100
  /// The part of it no process of the measurement used (speedmatrix and, when it runs here, the
  /// server and its children): other load on the host, 0–100 of all CPUs. Empty without own processes.
  std::optional<double> other_cpu_util_pct;
  std::optional<double> cpu_freq_mhz;  ///< mean current frequency over CPUs (cpufreq scaling_cur_freq)
  std::optional<double> cpu_temp_c;    ///< hottest CPU package/die sensor (hwmon: coretemp, k10temp, ...)
  /// Energy of all CPU packages since the sampler's first reading (RAPL energy_uj, wraps followed), J;
  /// empty where the counters cannot be read (most kernels: root only; VMs).
  std::optional<double> package_energy_j;
};

/// The server's own state at one moment, from its metrics. Counters are cumulative as exported
/// (a window's figure is the difference of two readings).
struct ServerReading {
  std::optional<int64_t> running;                  ///< requests being generated
  std::optional<int64_t> waiting;                  ///< requests queued
  std::optional<double> kv_usage;                  ///< KV-cache use, 0–1
  std::optional<double> preemptions_total;         ///< counter: requests preempted (evicted, recomputed)
  std::optional<double> prefix_cache_queries_total;  ///< counter: prompt tokens looked up in the prefix cache
  std::optional<double> prefix_cache_hits_total;     ///< counter: of those, found
  std::optional<double> prefix_cache_hit_rate;     ///< gauge, where the engine exports a rate instead (0–1)
  std::optional<double> spec_draft_tokens_total;   ///< counter: speculative tokens proposed
  std::optional<double> spec_accepted_tokens_total;  ///< counter: of those, accepted
  std::optional<double> spec_drafts_total;         ///< counter: drafts verified (vLLM: one per request per step)
  std::optional<double> spec_accept_length;        ///< gauge: mean accepted tokens per step (SGLang)
};

/// A stamped reading of each kind.
struct GpuSample {
  int64_t t_ns = 0;
  std::vector<GpuReading> gpus;
};
struct HostSample {
  int64_t t_ns = 0;
  HostReading host;
};
struct ServerSample {
  int64_t t_ns = 0;
  ServerReading server;
};

}  // namespace sm
