#pragma once
// From the raw telemetry series to one cell's figures (CellTelemetry): mean power, energy,
// tokens per joule, clock, temperature, the throttle verdict, host CPU and the server's queue,
// KV use and preemptions over the cell's window. docs/METRICS.md ("Telemetry") defines each.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "result/result.h"
#include "telemetry/telemetry_series.h"

namespace sm {

/// A clocks-event reason counts for a window when at least this share of its GPU readings
/// (sample × GPU) carry it.
constexpr double kThrottleReasonShare = 0.25;
/// "clocks_below_max": no reason bit, the GPUs busy (utilisation at least kBusyUtilPct) and the
/// mean SM clock below this share of the GPUs' maximum SM clock.
constexpr double kClocksBelowMaxShare = 0.80;
constexpr double kBusyUtilPct = 50;
/// A window whose mean utilisation of the server's GPUs is below this ran with the GPUs doing
/// essentially nothing (a CPU-served run on a GPU machine): its power, energy and tokens per joule
/// are left empty (docs/METRICS.md, "An idle GPU"; the H200's readings there: 0–2 % idle or
/// compiling, 51–77 % decoding).
constexpr double kIdleUtilPct = 5;

/// The throttle verdicts, most serious first (a window gets the first that applies).
constexpr std::string_view kThrottleThermal = "thermal";          ///< SW or HW thermal slowdown
constexpr std::string_view kThrottleHwSlowdown = "hw_slowdown";   ///< HW slowdown or power brake
constexpr std::string_view kThrottlePowerCapped = "power_capped"; ///< SW power cap
constexpr std::string_view kThrottleClocksBelowMax = "clocks_below_max";
constexpr std::string_view kThrottleOk = "ok";

struct WindowSummaryOptions {
  bool gpu = true;  ///< fill the GPU figures (false: the GPUs are not the server's)
  std::span<const GpuStaticInfo> gpus;  ///< maxima for clocks_below_max
  /// The server's GPUs (indices): only their readings count; empty: every GPU sampled.
  std::span<const int> server_gpus;
};

/// The figures of [begin_ns, end_ns] from the series. `tokens`: the window's output tokens
/// (prefill: prompt tokens), for tokens per joule. Counters and the energy are interpolated
/// linearly at the window's edges between the samples around them, so a window shorter than
/// the sampling interval still gets an energy (an estimate at constant power between samples).
CellTelemetry summarize_window(const TelemetrySeries& series, int64_t begin_ns, int64_t end_ns,
                               std::optional<int64_t> tokens, const WindowSummaryOptions& options);

/// The verdict of a set of GPU readings (exposed for tests); empty when no reading had the bits.
/// Each GPU is judged on its own readings and the most serious verdict wins, so one hot GPU of
/// eight is not outvoted by seven cool ones.
std::string throttle_verdict(std::span<const GpuSample> samples, std::span<const GpuStaticInfo> gpus);

/// A host interval counts as idle when its CPU use (all CPUs) is below this share.
constexpr double kHostIdleCpuPct = 10;

/// What the machine draws while it waits (docs/METRICS.md, "Energy and cost per million tokens").
struct IdlePower {
  std::optional<double> gpu_w;   ///< median summed power of the server's GPUs over the GPU samples taken outside
                                 ///< every row's and cell's window with each of those GPUs below kIdleUtilPct
  int64_t gpu_samples = 0;       ///< samples that median is of
  std::optional<double> host_w;  ///< median package power (RAPL) between consecutive host samples both outside
                                 ///< every window and whose CPU use was below
                                 ///< kHostIdleCpuPct; empty without RAPL
  int64_t host_samples = 0;
};

/// The idle draw of a run's series. `server_gpus`: the GPUs that count (empty: all).
IdlePower idle_power(const TelemetrySeries& series, std::span<const int> server_gpus);

}  // namespace sm
