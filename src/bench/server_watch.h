#pragma once
// What the run asks of the server around each measurement (issue 11, point 4), in one place so
// the runner only calls it:
// - before a prefill row or decode cell: the idle barrier (nothing running, nothing queued, up to
//   --drain-timeout), or, for a server without load metrics, a quiet period after cancelled streams;
// - during a decode window: the server's running / waiting counts sampled on the sampler thread;
// - after the window: SGLang's cut requests aborted by id.
// Which load endpoint answers is decided once, at the first measurement.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/closed_loop.h"
#include "bench/idle_barrier.h"
#include "core/clock.h"
#include "engines/server_load.h"
#include "result/result.h"
#include "telemetry/server_sampler.h"

namespace sm {

struct ServerWatchOptions {
  EngineKind kind = EngineKind::OpenAi;
  std::string base_url;               ///< no trailing slash
  std::vector<std::string> headers;   ///< e.g. the Authorization header
  HttpTransport transport;            ///< load reads and aborts (load_transport() in a run)
  double drain_timeout_s = 60;        ///< --drain-timeout; 0 = no idle check
  int64_t poll_interval_ns = 200 * kNsPerMs;
  int64_t quiet_period_ns = kNsPerS;  ///< without load metrics: pause after cancelled streams
};

/// Whether the next measurement may start.
struct Readiness {
  bool interrupted = false;  ///< Ctrl-C while waiting
  std::string busy;          ///< non-empty: do not measure; the row or cell is an error with this reason
};

class ServerWatch {
 public:
  /// `note` receives, once each, what the run's result must say (no idle check possible, aborts failing).
  ServerWatch(ServerWatchOptions options, const Clock& clock, SleepFn sleep, std::function<void(const std::string&)> note);
  ~ServerWatch();

  /// Before a row or cell: waits until the server is idle (or sits out the quiet period).
  Readiness before_measurement(const std::function<bool()>& interrupted);
  /// Right before a decode cell's loop: starts sampling the server's load.
  void window_opening(double window_s);
  /// Right after it: stops sampling, fills the cell's server_running_mean / server_waiting_mean
  /// over the window, and aborts the cut requests where the engine needs that.
  void window_closed(const LoopOutcome& outcome, DecodeCell& cell);

  /// The load endpoint in use; nullopt: none (after the first measurement).
  std::optional<LoadSource> load_source() const;

 private:
  const ServerLoadReader* reader();
  void abort_cut_requests(const std::vector<RequestRecord>& records);

  ServerWatchOptions options_;
  const Clock& clock_;
  SleepFn sleep_;
  std::function<void(const std::string&)> note_;
  bool detected_ = false;
  std::optional<ServerLoadReader> reader_;
  std::unique_ptr<ServerSampler> sampler_;
  bool streams_were_cut_ = false;  ///< the last window cancelled streams the server may still run
  bool abort_failure_noted_ = false;
};

/// The result's note when no idle check is possible for this engine.
std::string no_idle_check_note(EngineKind kind, double quiet_period_s);

}  // namespace sm
