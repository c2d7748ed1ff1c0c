#pragma once
// Which telemetry a run can have, decided once after the run folder exists: the GPUs through
// NVML or amdgpu's sysfs files (not for the embedded simulated engine; for a remote server they
// are the client's GPUs and their figures stay out of the cells), the host, and the server's
// metrics. Builds the recorder and the result's TelemetryInfo, and says why anything is missing.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "engines/engine_kind.h"
#include "engines/probe.h"
#include "result/result.h"
#include "telemetry/telemetry_recorder.h"

namespace sm {

struct TelemetrySetupOptions {
  double interval_s = 0.5;            ///< --telemetry-interval
  std::string nvml_lib;               ///< --nvml-lib; empty: libnvidia-ml.so.1
  std::string sys_root = "/";         ///< where amdgpu's sysfs files are read when NVML cannot open (tests: a fixture)
  std::string host_root = "/";        ///< where the host's /proc and /sys are read (tests: a fixture)
  bool simulated_engine = false;      ///< the embedded engine: no GPU of its own
  bool remote_target = false;         ///< the server runs elsewhere: GPU and host readings are the client's
  EngineKind kind = EngineKind::OpenAi;
  std::string base_url;               ///< the server, for its metrics
  std::vector<std::string> headers;
  HttpTransport transport;            ///< metrics reads (load_transport() in a run)
  std::string run_dir;                ///< where the series file goes
  std::string series_file = "telemetry.jsonl";  ///< its name in the run folder
  /// The measurement's own processes (speedmatrix; a server on this machine and its children):
  /// the host's CPU beyond theirs is other load (a busy host).
  std::vector<int> own_pids;
  /// The server's own processes on this machine (its launch shell or listener and their children):
  /// whose GPUs they are (docs/METRICS.md, "The server's GPUs"). Empty: not known.
  std::vector<int> server_pids;
  /// --server-gpus, split: the server's GPUs as declared (indices or UUIDs).
  std::vector<std::string> declared_server_gpus;
};

struct TelemetrySetup {
  std::unique_ptr<TelemetryRecorder> recorder;  ///< started
  TelemetryInfo info;
  bool gpu_figures = false;  ///< the cells get GPU figures (the GPUs sampled are the server's)
  /// Why the run must not start (a --server-gpus that names no GPU here); empty: it may.
  std::string refused;
};

/// Opens what can be opened, finds the server's GPUs among those sampled, and starts the recorder.
/// `note` gets each reason something is missing (once). A run without any telemetry still runs;
/// only a declaration naming no GPU of this machine sets `refused`.
TelemetrySetup start_telemetry(const TelemetrySetupOptions& options, const Clock& clock,
                               const std::function<void(const std::string&)>& note);

/// The progress line's live figures: " · 312 W · 1,905 MHz" (empty when there are none).
std::string live_telemetry_text(const LiveTelemetry& live);

}  // namespace sm
