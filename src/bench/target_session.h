#pragma once
// The target session: everything `run` and `sweep` do to reach the server before they measure,
// in one place — the embedded simulated engine or a --launch'ed server started (and stopped), the
// first contact (network round trip, HTTP version, credentials), the engine probed, the requests
// a measurement sends, how the result records the connection, what is redacted, and (for `run`)
// the telemetry sampler over the run. It owns the processes and threads that must outlive every
// measurement: the embedded engine, the launched server, the telemetry recorder.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/progress.h"
#include "bench/run_config.h"
#include "bench/telemetry_setup.h"
#include "core/clock.h"
#include "core/error.h"
#include "engines/probe.h"
#include "engines/request_builder.h"
#include "net/round_trip.h"
#include "net/stream_client.h"
#include "result/redact.h"
#include "result/result.h"
#include "sim/sim_server.h"
#include "system/server_process.h"

namespace sm {

class TargetSession {
 public:
  /// A message for the terminal (the owner prefixes and redacts it).
  using NoteFn = std::function<void(const std::string&)>;

  /// `target` and `clock` must outlive the session.
  TargetSession(const TargetConfig& target, bool redact_host, const Clock& clock, NoteFn note);
  TargetSession(const TargetSession&) = delete;
  TargetSession& operator=(const TargetSession&) = delete;

  /// The built-in simulated engine on loopback inside this process (no target given); the
  /// caller says so on the terminal. `attention_window_tokens`: --attention-window (0 = all).
  Result<void> start_embedded_engine(int64_t attention_window_tokens = 0);
  /// --launch: starts `command` (its log, redacted, at runs/.server-PID.log until the run folder
  /// exists) and waits until it is healthy. A port already answering is refused first when
  /// `port_check`.
  Result<void> launch(const std::string& command, bool port_check, double timeout_s);
  /// `run`'s first contact: a few small GETs on one connection give the network round trip,
  /// settle the HTTP version (--http2 falls back to HTTP/1.1 where it must) and fail early, with
  /// the fix named, on a certificate, proxy or credential problem.
  Result<void> connect();
  /// `sweep`'s: the round trip measured after the probe; a failure is only a note.
  void measure_round_trip_or_note();
  /// Detects the engine and its capacity (a launched llama.cpp's log says whether its KV cache
  /// is unified); each of the probe's notes is said.
  Result<void> probe();
  /// Moves a launched server's log into the run folder (a failure is said, not swallowed).
  void move_server_log(const std::string& path);

  /// --telemetry for `run`: the sampler thread over the whole run (or only --server-gpus's
  /// narrowing of the probed GPUs without it); fills result.telemetry and the progress line's
  /// live figures.
  Result<void> start_telemetry_sampling(const RunConfig& config, RunResult& result, const std::string& run_dir,
                                        ProgressLine& progress);
  /// After a window: one more sample (so the window's end is bracketed), the window's mark in the
  /// series and its figures; empty without telemetry.
  CellTelemetry window_telemetry(const WindowMark& mark);
  /// The notes the sampler thread queued since the last call.
  std::vector<std::string> take_telemetry_notes();
  const TelemetrySetup& telemetry() const { return telemetry_; }
  void stop_telemetry();
  /// Stops a launched server (idempotent).
  void stop_server() { server_.stop(); }

  /// The result's opening as this session knows it: the tool's build, a new run id and start
  /// time (`now_ms`), measured or simulated, the target URL, the engine probed, the connection,
  /// and whose hardware it is (bench/attribution; `attribution` carries what was declared).
  void open_result(RunResult& result, int64_t now_ms, const RunConfig& attribution) const;
  /// A streamed completion request for `prompt`.
  HttpRequest completion_request(std::string prompt, int64_t max_tokens, double temperature) const;
  /// A conversation (the sessions workload's turn): role-tagged messages on the chat API, their
  /// contents joined by `separator` into one prompt on the completions API.
  HttpRequest conversation_request(const std::vector<ChatMessage>& messages, std::string_view separator,
                                   int64_t max_tokens, double temperature) const;
  /// The stream client's options for the measuring loops (after connect()'s fallbacks).
  StreamClientOptions client_options() const;
  /// How the result records the connection.
  ConnectionInfo connection_info() const;
  RedactOptions redact_options() const;
  void note(const std::string& message) const { note_(message); }

  const std::string& base_url() const { return base_url_; }
  const ConnectionOptions& connection() const { return connection_; }
  const std::vector<std::string>& headers() const { return headers_; }
  const ProbeResult& probed() const { return probe_; }
  ProbeResult& probed() { return probe_; }
  const sim::SimServer* embedded() const { return sim_.get(); }
  bool launched() const { return launched_; }
  const std::string& launch_log_path() const { return launch_log_path_; }

 private:
  /// `spec` (its prompt or messages) with the model, the output length and how it is forced.
  HttpRequest streamed_request(CompletionSpec spec, int64_t max_tokens, double temperature) const;
  std::vector<int> measurement_processes(bool server_here);

  const TargetConfig& target_;
  const Clock& clock_;
  bool redact_host_;
  NoteFn note_;
  std::string base_url_;          ///< where the server is (the flag, or the embedded engine)
  ConnectionOptions connection_;  ///< the connection options, as connect() settled them
  std::vector<std::string> headers_;
  std::optional<RoundTrip> round_trip_;  ///< the first contact's measurement
  ProbeResult probe_;
  ServerProcess server_;          ///< the --launch server, if any
  bool launched_ = false;
  std::string launch_log_path_;   ///< where its log goes until the run folder exists
  std::unique_ptr<sim::SimServer> sim_;  ///< the embedded simulated engine
  std::mutex telemetry_notes_mu_;        ///< the sampler thread's notes wait here for the measuring thread
  std::vector<std::string> telemetry_notes_;
  TelemetrySetup telemetry_;  ///< the sampler thread (recorder null: off); after what its notes use, so it
                              ///< stops before they go
};

}  // namespace sm
