#pragma once
// The run's telemetry sampler: a thread that reads the GPUs and the host every interval (0.5 s
// by default) and the server's metrics every second, keeps the series in memory, and appends
// each sample to the run folder's telemetry.jsonl as it comes. The measuring thread never waits
// on it during a window: it only reads the latest values for the progress line (a short lock),
// and, after a window has closed, asks for one more sample (sample_now) and the window's
// summary.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "result/result.h"
#include "telemetry/periodic_thread.h"
#include "telemetry/telemetry_series.h"
#include "telemetry/telemetry_sources.h"
#include "telemetry/window_summary.h"

namespace sm {

struct RecorderOptions {
  int64_t interval_ns = 500'000'000;          ///< GPUs and host
  int64_t server_interval_ns = 1'000'000'000; ///< the server's metrics
  std::string jsonl_path;                     ///< where the series is appended; empty: memory only
  bool sampler_thread = true;                 ///< false (tests): samples only through sample_now()
  /// The server's GPUs (indices): only they count in summaries and the live figures; every GPU
  /// is still sampled into the series. Empty: all of them.
  std::vector<int> server_gpus;
};

/// What the progress line shows while a cell runs.
struct LiveTelemetry {
  std::optional<double> gpu_power_w;       ///< summed over the server's GPUs
  std::optional<double> gpu_sm_clock_mhz;  ///< mean over the server's GPUs
};

class TelemetryRecorder {
 public:
  /// `note` receives, once each, what the result must say (a file that cannot be written, ...).
  TelemetryRecorder(TelemetrySources sources, const Clock& clock, RecorderOptions options,
                    std::function<void(const std::string&)> note = {});
  ~TelemetryRecorder();
  TelemetryRecorder(const TelemetryRecorder&) = delete;
  TelemetryRecorder& operator=(const TelemetryRecorder&) = delete;

  /// Reads the GPUs' fixed facts, writes the "start" line and starts the sampler thread (its
  /// first sample at once).
  void start(int64_t unix_ms);
  /// Stops the thread (a sample in progress finishes) and flushes the file. Idempotent.
  void stop();
  /// One sample of every source now, on the calling thread (after a window, so its end is
  /// bracketed by a sample).
  void sample_now();
  /// Records a measured window in the series and the file.
  void mark(const WindowMark& window);

  /// The figures of [begin_ns, end_ns] (see summarize_window).
  CellTelemetry summarize(int64_t begin_ns, int64_t end_ns, std::optional<int64_t> tokens, bool gpu_figures) const;
  LiveTelemetry live() const;
  std::vector<GpuStaticInfo> gpus() const;
  /// The first GPU reading (power limit, PCIe link at the start); empty before the first sample.
  std::vector<GpuReading> first_gpu_reading() const;
  /// A copy of everything sampled so far.
  TelemetrySeries series() const;

  bool has_gpu() const { return sources_.gpu != nullptr; }
  bool has_host() const { return sources_.host != nullptr; }
  bool has_server() const { return static_cast<bool>(sources_.server); }

 private:
  void tick(bool force_server);
  void write_line(const std::string& line);

  TelemetrySources sources_;
  const Clock& clock_;
  RecorderOptions options_;
  std::function<void(const std::string&)> note_;
  std::mutex sample_mu_;          ///< one sample at a time (sources are not thread-safe)
  mutable std::mutex data_mu_;    ///< the series and the file
  TelemetrySeries series_;
  std::vector<GpuStaticInfo> gpu_info_;
  std::vector<GpuReading> scratch_;
  int64_t last_server_ns_ = INT64_MIN;
  std::FILE* file_ = nullptr;
  bool file_failed_ = false;
  PeriodicThread thread_;  ///< last: stopped before the members its ticks use are destroyed
};

}  // namespace sm
