#pragma once
// A server speedmatrix starts itself (`run --launch "CMD"`): started through /bin/sh in its own
// process group with stdout and stderr in a log file (written redacted: system/redacting_log.h),
// waited on until healthy, and stopped with
// SIGTERM, then SIGKILL. A guard process ends the group when speedmatrix dies without stopping
// it (SIGKILL, a crash, an OOM kill, a closed SSH session), so no server outlives its run.
#include <sys/types.h>

#include <string>

#include "core/error.h"
#include "net/connection_options.h"
#include "result/redact.h"
#include "system/redacting_log.h"

namespace sm {

class ServerProcess {
 public:
  ServerProcess() = default;
  ~ServerProcess();  ///< stops the server if it still runs
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  /// Starts `command` (a shell command line) with output appended to `log_path`, each line
  /// redacted with `secrets` (and the secret shapes redact_text knows).
  Result<void> start(const std::string& command, const std::string& log_path, RedactOptions secrets = {});

  /// Moves the log (to the run folder) while the server writes it; across file systems too.
  Result<void> move_log(const std::string& path) { return log_.move_to(path); }

  /// Polls `health_url` until it answers 200, the process exits, or `timeout_s` passes. The
  /// error names what happened and carries the log's last lines.
  Result<void> wait_healthy(const std::string& health_url, double timeout_s, const ConnectionOptions& connection = {});

  /// SIGTERM to the whole process group, up to `grace_s` to exit, then SIGKILL. Idempotent.
  void stop(double grace_s = 10);

  /// True while the process has not exited.
  bool running();

  std::string log_path() const { return log_.path(); }
  pid_t pid() const { return pid_; }

  /// The last `lines` lines of the log.
  std::string log_tail(int lines) const;

 private:
  void start_guard();
  void stop_guard();

  pid_t pid_ = -1;
  pid_t guard_pid_ = -1;  ///< the process that ends the group if this one dies without stopping it
  int guard_fd_ = -1;     ///< the write end of the guard's pipe: closing it (or dying) wakes the guard
  int exit_status_ = -1;  ///< waitpid status once reaped
  RedactingLog log_;
};

/// Fails with a message that says so when something already accepts connections on `host`:`port`
/// (an IPv4 literal or "localhost"; other hosts are not checked): a launch there would fail or,
/// worse, measure the old server.
Result<void> check_port_free(const std::string& host, int port);

/// The port a launch command names with --port N / --port=N, or 0 when none.
int port_from_command(const std::string& command);

}  // namespace sm
