#pragma once
// A launched server's log, written by speedmatrix rather than by the server: its stdout and
// stderr come through a pipe, and a thread writes each line to the log file redacted
// (redact_text: secret-shaped values, and every literal secret the run was given), so a server
// that logs its own --api-key (vLLM prints its arguments) does not put it on disk. The file can
// be moved to the run folder while the server runs, on another file system too.
//
//   RedactingLog log;
//   auto write_end = log.start("runs/.server-123.log", secrets);   // the child's stdout/stderr
//   ... fork, dup2(*write_end, 1), dup2(*write_end, 2), exec; close(*write_end) in the parent ...
//   log.move_to("runs/RUN/server.log");
//   log.finish(2.0);                                                  // after the server is gone
#include <atomic>
#include <mutex>
#include <string>
#include <thread>

#include "core/error.h"
#include "result/redact.h"

namespace sm {

class RedactingLog {
 public:
  RedactingLog() = default;
  ~RedactingLog();  ///< finish(0)
  RedactingLog(const RedactingLog&) = delete;
  RedactingLog& operator=(const RedactingLog&) = delete;

  /// Opens `path` for appending and starts the writer thread. Returns the pipe's write end for
  /// the child (close-on-exec: dup2 it onto the child's 1 and 2; the caller closes it after the fork).
  Result<int> start(const std::string& path, RedactOptions options);

  /// Moves the log to `path` (rename; a copy and an unlink across file systems); what comes later
  /// is appended there. The log's path stays the old one when the move fails (the error says why).
  Result<void> move_to(const std::string& path);

  /// Waits up to `timeout_s` for the pipe's end (every writer gone), writes what is left, and
  /// stops the thread. Idempotent.
  void finish(double timeout_s);

  std::string path() const;

 private:
  void run();
  void write_line(std::string_view line);

  mutable std::mutex mutex_;  ///< guards fd_ and path_ (the writer and move_to)
  int fd_ = -1;               ///< the log file
  std::string path_;
  int read_fd_ = -1;          ///< the pipe's read end (the writer thread's)
  RedactOptions options_;
  std::atomic<bool> stop_{false};
  std::thread writer_;
};

}  // namespace sm
