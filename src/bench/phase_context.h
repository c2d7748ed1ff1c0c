#pragma once
// What every phase of a run (bench/phase.h) works with: the run's configuration, the server
// (TargetSession), the result being measured, the measuring loop, the prompts, the idle barrier,
// the progress line and where the time goes (RunTiming) — and the few steps every measurement is
// made of: one request outside a window, a prompt of an exact length with a unique head, the idle
// barrier before a row or cell, a window's telemetry, a save of result.json.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "bench/closed_loop.h"
#include "bench/progress.h"
#include "bench/request_log.h"
#include "bench/run_config.h"
#include "bench/server_watch.h"
#include "bench/target_session.h"
#include "core/clock.h"
#include "core/error.h"
#include "result/result.h"
#include "workload/prompt_builder.h"
#include "workload/token_counter.h"

namespace sm {

struct PhaseContext {
  /// All four must outlive the context.
  PhaseContext(const RunConfig& config, const Clock& clock, TargetSession& session, ProgressLine& progress)
      : config(config), clock(clock), session(session), progress(progress) {}
  PhaseContext(const PhaseContext&) = delete;
  PhaseContext& operator=(const PhaseContext&) = delete;

  const RunConfig& config;
  const Clock& clock;
  TargetSession& session;
  ProgressLine& progress;
  RunResult result;                   ///< what was measured (written redacted by save())
  MatrixSettings matrix;              ///< the matrix as fitted to the server (or resumed)
  CapacityLimits limits;              ///< the server's, or --kv-capacity / --max-model-len
  std::string run_dir;                ///< the run folder ("" before one is made)
  int64_t session_start_ns = 0;       ///< when this session began (0: save() records no timing)
  RunTiming timing;                   ///< this session's phases (total_s unused: save() measures it)
  RunTiming earlier_timing;           ///< what the sessions before a --resume spent
  bool save_failed = false;           ///< the last save failed
  std::unique_ptr<ClosedLoop> loop;   ///< the measuring loop (after the session's connect())
  std::unique_ptr<TokenCounter> endpoint_counter;  ///< the tokenize endpoint (counter wraps it)
  std::unique_ptr<TokenCounter> counter;           ///< what prompt building uses (overhead included)
  std::unique_ptr<PromptBuilder> builder;          ///< made at first use
  std::unique_ptr<RequestLog> request_log;         ///< --save-requests: requests.jsonl; null = off

  /// A line on stderr ("speedmatrix: ...", redacted).
  void note(const std::string& message) const { session.note(message); }
  /// Writes result.json (redacted), with this session's timing, the sampler's notes, capacity and
  /// energy brought up to date. A failure is said once; the run goes on.
  void save();
  /// A streamed completion request for `prompt` at the run's temperature.
  HttpRequest completion_request(const std::string& prompt, int64_t max_tokens) const;
  /// Runs the measuring loop and puts its requests in requests.jsonl (with --save-requests),
  /// tagged with what they were for. Every request a phase sends goes through here.
  LoopOutcome run_loop(const LoopSpec& spec, const RequestTag& tag);
  /// One request outside a decode window, bounded by --request-timeout and max_tokens; `error`
  /// gets why it failed ("interrupted" when it was).
  RequestRecord single_request(const std::string& prompt, int64_t prompt_tokens, int64_t max_tokens,
                               std::string& error, const RequestTag& tag);
  /// The request failed because the server ignored max_tokens (ClosedLoop cut it).
  static bool ignores_max_tokens(const RequestRecord& r);
  /// Says so once per run, as a warning.
  void note_once_ignores_max_tokens(const RequestRecord& r);
  /// A prompt of exactly `context` tokens starting with `head` (its time goes to timing.prompts_s).
  Result<BuiltPrompt> build_prompt(int64_t context, const std::string& head);
  /// A prompt builder over the run's prompt source (--prompts, --dataset; random words by default).
  std::unique_ptr<PromptBuilder> make_builder() const;
  /// A head no prefix cache can hold yet: unique per run, session, purpose and length.
  std::string unique_head(std::string_view what, int64_t tokens) const;
  /// The idle barrier, sampler and aborts around windows (made at first use).
  ServerWatch& watch();
  /// The idle barrier before a row or cell: false (and the status set) when it must not run.
  bool server_ready(CellStatus& status, std::string& error);
  /// A decode loop's time: the ramp, the window, the wind-down.
  void charge_loop(int64_t loop_start_ns, const LoopOutcome& out);
  CellTelemetry window_telemetry(const WindowMark& mark) { return session.window_telemetry(mark); }
  double seconds_since(int64_t t0_ns) const { return static_cast<double>(clock.now_ns() - t0_ns) / 1e9; }

 private:
  std::unique_ptr<ServerWatch> watch_;  ///< idle barrier, window sampler, SGLang aborts
};

}  // namespace sm
