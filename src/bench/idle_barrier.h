#pragma once
// The idle barrier: before a prefill row or decode cell, wait until the server reports nothing
// running and nothing queued, so a cell is never measured while the previous cell's cancelled
// streams still run (the real concurrency would be higher than the cell's). Polls the server's
// load up to `timeout_ns` (--drain-timeout): first after `first_poll_interval_ns`, each wait
// twice the last up to `poll_interval_ns` (a server that drains in 30 ms is not waited on for
// 200), and after a failed read the full interval. Time and sleeping are injected: tests drive
// both by hand.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/error.h"
#include "engines/server_load.h"

namespace sm {

/// Reads the server's load once (ServerLoadReader::read in production).
using LoadReadFn = std::function<Result<ServerLoad>()>;
/// Sleeps about this long (std::this_thread::sleep_for in production).
using SleepFn = std::function<void(int64_t ns)>;

struct IdleBarrierOptions {
  int64_t timeout_ns = 60 * kNsPerS;         ///< give up after this long (--drain-timeout)
  int64_t first_poll_interval_ns = 10 * kNsPerMs;  ///< after the first busy read; doubles from there
  int64_t poll_interval_ns = 200 * kNsPerMs;       ///< the longest wait between two reads
  int max_failed_reads = 5;                  ///< consecutive failed reads that end the wait
};

struct IdleWait {
  bool idle = false;                ///< the server said nothing runs and nothing waits
  bool interrupted = false;         ///< Ctrl-C arrived while waiting
  int64_t polls = 0;                ///< reads made
  int64_t waited_ns = 0;            ///< from the first read to the verdict
  std::optional<ServerLoad> last;   ///< the last load read
  /// Why the measurement must not start (empty when idle or interrupted), e.g.
  /// "server still busy: 3 running, 0 waiting after 60 s".
  std::string reason;
};

/// Polls until the server is idle, the timeout passes, reads keep failing, or `interrupted`
/// says so (checked before each read). Never sleeps when the first read is already idle.
IdleWait wait_until_idle(const LoadReadFn& read, const Clock& clock, const SleepFn& sleep,
                         const IdleBarrierOptions& options, const std::function<bool()>& interrupted = {});

/// "60 s", "0.5 s": a duration as the barrier's messages write it.
std::string format_wait_s(int64_t ns);

}  // namespace sm
