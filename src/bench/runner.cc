#include "bench/runner.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <vector>

#include "bench/busy_host.h"
#include "bench/calibration.h"
#include "bench/matrix_phase.h"
#include "bench/mixed_prefill_phase.h"
#include "bench/phase.h"
#include "bench/request_log.h"
#include "bench/retrieval_phase.h"
#include "bench/run_folder.h"
#include "bench/run_outcome.h"
#include "bench/run_start.h"
#include "bench/sessions_phase.h"
#include "bench/slo_phase.h"
#include "bench/target_session.h"
#include "core/interrupt.h"
#include "gguf/synth_detect.h"
#include "report/report.h"
#include "result/redact_result.h"
#include "result/result_json.h"
#include "selftest/selftest.h"

namespace sm {

namespace {

bool use_color(std::FILE* f) { return isatty(fileno(f)) && std::getenv("NO_COLOR") == nullptr; }

// The phases of a run, in the order they run (bench/phase.h). A new workload or check is a new
// phase here.
std::vector<std::unique_ptr<Phase>> run_phases() {
  std::vector<std::unique_ptr<Phase>> phases;
  phases.push_back(std::make_unique<MatrixPhase>());  // prefill rows and decode cells, every pass
  phases.push_back(std::make_unique<RetrievalPhase>());  // after the last pass, outside every window
  phases.push_back(std::make_unique<SloPhase>());  // --slo: probes measured like decode cells
  phases.push_back(std::make_unique<MixedPrefillPhase>());  // --mixed-prefill: a long prompt among decoders
  phases.push_back(std::make_unique<SessionsPhase>());  // --sessions / --trace: conversations turn by turn
  return phases;
}

// One run: the server reached (TargetSession), the result started or resumed, the counter
// calibrated, then each phase in order over one PhaseContext, then the reports.
class MatrixRun {
 public:
  MatrixRun(const RunConfig& config, const Clock& clock)
      : config_(config),
        progress_(stdout, !config.quiet && isatty(fileno(stdout)) && !config.json_output, use_color(stdout), clock,
                  // Not a terminal (a log, CI, nohup): a line per finished cell on stderr instead.
                  !config.quiet && !(isatty(fileno(stdout)) && !config.json_output) ? stderr : nullptr),
        session_(config.target, config.redact_host, clock, [this](const std::string& n) { note(n); }),
        ctx_(config, clock, session_, progress_) {}

  int execute();
  /// The folder this run wrote ("" before it made one).
  const std::string& run_dir() const { return ctx_.run_dir; }

 private:
  int reach_server();
  void report_unreachable(const Error& error);
  void note(const std::string& message);
  int finish(bool interrupted);

  const RunConfig& config_;
  ProgressLine progress_;
  TargetSession session_;  ///< the server, how it is reached, its telemetry
  PhaseContext ctx_;  ///< the result and what the phases measure with
};

void MatrixRun::note(const std::string& message) {
  progress_.clear();
  std::fprintf(stderr, "speedmatrix: %s\n", redact_text(message, session_.redact_options()).c_str());
}

// The server reached: the embedded engine started or the --launch server launched, the first
// contact, the probe; the errors are said here, the exit status returned (0: go on).
int MatrixRun::reach_server() {
  if (config_.embedded_sim) {
    if (auto ok = session_.start_embedded_engine(config_.sim_attention_window); !ok) {
      std::fprintf(stderr, "speedmatrix run: cannot start the simulated engine: %s\n", ok.error().message.c_str());
      return kExitFailure;
    }
    std::fprintf(stderr, "speedmatrix: no --url given: measuring the built-in simulated engine (%s) at %s\n",
                 session_.embedded()->model_id().c_str(), session_.base_url().c_str());
  }
  if (!config_.launch_command.empty())
    if (auto ok = session_.launch(config_.launch_command, config_.launch_port_check, config_.launch_timeout_s); !ok) {
      std::fprintf(stderr, "speedmatrix run: %s\n", ok.error().message.c_str());
      return interrupt_requested() ? kExitInterrupted : kExitFailure;
    }
  for (auto step : {&TargetSession::connect, &TargetSession::probe})
    if (auto ok = (session_.*step)(); !ok) {
      report_unreachable(ok.error());
      return kExitFailure;
    }
  ctx_.loop = std::make_unique<ClosedLoop>(ctx_.clock, session_.client_options());
  ProbeResult& probe = session_.probed();
  probe.engine.synthetic_model = is_synthetic_model(probe.engine.model, probe.engine.model_path);
  const CapacityLimits& o = config_.limits_override;
  ctx_.limits.kv_capacity_tokens = o.kv_capacity_tokens ? o.kv_capacity_tokens : probe.engine.kv_capacity_tokens;
  ctx_.limits.max_model_len = o.max_model_len ? o.max_model_len : probe.engine.max_model_len;
  return kExitOk;
}

// The first contact failed. A resumed --url run says what to do: its server must still be there.
void MatrixRun::report_unreachable(const Error& error) {
  if (!config_.resume_dir.empty() && !session_.embedded() && config_.launch_command.empty() &&
      (error.code == ErrorCode::Network || error.code == ErrorCode::Timeout))
    std::fprintf(stderr,
                 "speedmatrix run: --resume: the interrupted run's server does not answer: %s\n"
                 "  Start it again (the same model and settings), or give --url where it runs now.\n",
                 redact_text(error.message, session_.redact_options()).c_str());
  else
    std::fprintf(stderr, "speedmatrix run: %s\n", error.message.c_str());
}

int MatrixRun::execute() {
  ctx_.session_start_ns = ctx_.clock.now_ns();
  const int64_t session_start_unix_ms = wall_clock_unix_ms();
  // The client's own ceiling first (~1 s), while nothing else runs: every cell is compared to it.
  std::optional<double> ceiling_tok_s;
  if (config_.client_selftest) {
    auto ceiling = quick_client_ceiling();
    if (ceiling) {
      ceiling_tok_s = *ceiling;
    } else {
      note("client self-test skipped: " + ceiling.error().message);
    }
  }
  if (const int code = reach_server(); code != kExitOk) return code;
  if (auto ok = start_run(ctx_); !ok) {
    std::fprintf(stderr, "speedmatrix run: %s\n", ok.error().message.c_str());
    return kExitFailure;
  }
  // requests.jsonl with --save-requests, and always for the sessions workload (its turns are its figures).
  if (config_.save_requests || ctx_.result.settings.sessions) {
    auto log = RequestLog::open((std::filesystem::path(ctx_.run_dir) / kRequestsFile).string(),
                                {ctx_.session_start_ns, session_start_unix_ms}, session_.redact_options());
    if (!log) {
      std::fprintf(stderr, "speedmatrix run: %s: %s\n", config_.save_requests ? "--save-requests" : "requests.jsonl",
                   log.error().message.c_str());
      return kExitFailure;
    }
    ctx_.request_log = std::move(*log);
  }
  if (ceiling_tok_s) ctx_.result.client_ceiling = ClientCeiling{*ceiling_tok_s, 64};
  if (auto ok = session_.start_telemetry_sampling(config_, ctx_.result, ctx_.run_dir, progress_); !ok) {
    std::fprintf(stderr, "speedmatrix run: %s\n", ok.error().message.c_str());
    return kExitFailure;
  }
  auto calibrated = calibrate_counter(ctx_);
  // The client self-test, launch, probe and calibration.
  ctx_.timing.setup_s = ctx_.seconds_since(ctx_.session_start_ns);
  if (auto& ok = calibrated; !ok) {
    ctx_.result.warnings.push_back(ok.error().message);
    ctx_.save();
    std::fprintf(stderr, "speedmatrix run: %s\n", ok.error().message.c_str());
    return interrupt_requested() ? kExitInterrupted : kExitFailure;
  }

  const std::vector<std::unique_ptr<Phase>> phases = run_phases();
  PhaseUnits units;
  for (const auto& phase : phases) {
    const PhaseUnits owed = phase->units_owed(ctx_);
    units.total += owed.total;
    units.decode += owed.decode;
  }
  progress_.set_plan(units.total, units.decode, ctx_.matrix.duration_s);
  // An interrupted phase ends the run: the later ones do not run, but every one settles.
  bool interrupted = false;
  for (const auto& phase : phases) {
    if (!interrupted) interrupted = phase->run(ctx_);
    phase->settle(ctx_);
  }
  return finish(interrupted || interrupt_requested());
}

int MatrixRun::finish(bool interrupted) {
  session_.stop_telemetry();
  if (const std::string busy = busy_host_warning(ctx_.result); !busy.empty()) note(busy);
  char buf[32];
  ctx_.result.finished_at = std::string(format_iso8601_utc(wall_clock_unix_ms(), buf));
  redact_result(ctx_.result, session_.redact_options());  // the reports and what is printed below, too
  ctx_.save();
  progress_.clear();
  if (!config_.launch_command.empty()) session_.stop_server();  // before the report: the last line is the folder
  const bool reports_written = [&] {
    auto ok = write_run_reports(ctx_.result, ctx_.run_dir);
    if (!ok) note("cannot write reports: " + ok.error().message);
    return ok.has_value();
  }();
  const std::string html = (std::filesystem::path(ctx_.run_dir) / kReportHtmlFile).string();
  if (config_.json_output) {
    std::puts(to_json(ctx_.result).dump(2).c_str());
  } else {
    RenderOptions options;
    options.color = use_color(stdout);
    options.details_hint = reports_written ? "report.html in the run folder (below)" : "report --format html";
    std::fputs(render_report(ctx_.result, ReportFormat::Term, options).c_str(), stdout);
  }
  std::fflush(stdout);
  std::fprintf(stderr, "speedmatrix: %s: %s%s\n", interrupted ? "interrupted, finished cells saved in" : "results in",
               ctx_.run_dir.c_str(), reports_written ? fmt::format(" (open {})", html).c_str() : "");
  if (ctx_.save_failed) return kExitFailure;
  if (interrupted) return kExitInterrupted;
  if (const std::string why = outcome_line(ctx_.result); !why.empty())
    std::fprintf(stderr, "speedmatrix: %s\n", why.c_str());
  return exit_code_for(ctx_.result);
}

}  // namespace

int run_matrix(const RunConfig& config, std::string* run_folder) {
  install_interrupt_handler();
  MatrixRun run(config, SteadyClock::instance());
  const int code = run.execute();
  if (run_folder) *run_folder = run.run_dir();
  return code;
}

}  // namespace sm
