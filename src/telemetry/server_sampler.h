#pragma once
// The server-side concurrency check: while a decode window runs, the server's own running and
// waiting counts are read every second on a sampler thread (its own blocking fetch; the
// measuring thread never waits on it), and the cell records their means over the window
// (server_running_mean, server_waiting_mean).
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "engines/server_load.h"
#include "telemetry/periodic_thread.h"

namespace sm {

/// One reading of the server's load and when its request was sent and answered: the server read
/// its gauges somewhere in between.
struct LoadSample {
  int64_t sent_ns = 0;
  int64_t received_ns = 0;
  ServerLoad load;
};

/// The load over a decode window.
struct WindowLoad {
  std::optional<double> running_mean;  ///< mean running count of the samples inside the window
  std::optional<double> waiting_mean;  ///< same for waiting, over the samples that said it
  int64_t samples = 0;                 ///< samples inside the window
};

/// Mean of the samples taken wholly inside [begin_ns, end_ns] (sent at or after its start,
/// answered at or before its end), so none can be a reading of the ramp or of the cancelled
/// streams after the window; no samples there: no means.
WindowLoad mean_in_window(std::span<const LoadSample> samples, int64_t begin_ns, int64_t end_ns);

/// How often to sample a window of this length: every second, or five times per window when
/// the window is shorter than 5 s (never more often than every 100 ms).
int64_t sampling_interval_ns(double window_s);

/// Reads the server's load periodically on its own thread between start() and stop().
class ServerSampler {
 public:
  using ReadLoad = std::function<Result<ServerLoad>()>;
  ServerSampler(ReadLoad read, const Clock& clock) : read_(std::move(read)), clock_(clock) {}

  /// Starts sampling (first sample at once). Samples of a previous round are dropped.
  void start(int64_t interval_ns);
  /// Stops (a read in progress finishes first) and returns the samples; failed reads left none.
  std::vector<LoadSample> stop();

 private:
  void sample();

  ReadLoad read_;
  const Clock& clock_;
  std::mutex mu_;
  std::vector<LoadSample> samples_;
  PeriodicThread thread_;  ///< last: stopped before the members its ticks use are destroyed
};

}  // namespace sm
