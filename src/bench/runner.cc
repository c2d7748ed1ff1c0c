#include "bench/runner.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "bench/attribution.h"
#include "bench/busy_host.h"
#include "bench/closed_loop.h"
#include "bench/connection_record.h"
#include "bench/run_secrets.h"
#include "bench/progress.h"
#include "bench/repeat_passes.h"
#include "bench/resume.h"
#include "bench/retrieval_check.h"
#include "bench/slo_search.h"
#include "bench/run_outcome.h"
#include "bench/run_folder.h"
#include "bench/server_watch.h"
#include "bench/target_session.h"
#include "bench/telemetry_setup.h"
#include "telemetry/server_gpus.h"
#include "core/build_info.h"
#include "core/interrupt.h"
#include "core/units.h"
#include "gguf/synth_detect.h"
#include "metrics/capacity.h"
#include "metrics/energy_cost.h"
#include "engines/completion_response.h"
#include "engines/probe.h"
#include "engines/request_builder.h"
#include "metrics/cell_metrics.h"
#include "metrics/slo.h"
#include "metrics/stats.h"
#include "metrics/window_precision.h"
#include "report/report.h"
#include "net/http_fetch.h"
#include "net/round_trip.h"
#include "net/url.h"
#include "result/redact_result.h"
#include "result/result_json.h"
#include "selftest/selftest.h"
#include "sim/calc_sim_config.h"
#include "sim/sim_server.h"
#include "system/hardware_probe.h"
#include "system/local_processes.h"
#include "system/server_process.h"
#include "workload/prompt_builder.h"
#include "workload/token_counter.h"

namespace sm {

namespace {

constexpr std::string_view kIgnoresMaxTokens = "server ignores max_tokens";  // ClosedLoop's reason

// "2 of 37 requests failed; first: ..." when any request of a cell failed.
std::optional<std::string> failed_requests_reason(const std::vector<RequestRecord>& records) {
  int64_t failed = 0;
  const RequestRecord* first = nullptr;
  for (const auto& r : records)
    if (r.end == RequestEnd::Failed && ++failed == 1) first = &r;
  if (failed == 0) return std::nullopt;
  return fmt::format("{} of {} request{} failed; first: {}", failed, records.size(), records.size() == 1 ? "" : "s",
                     first->error.empty() ? "no reason recorded" : first->error);
}

// One finished row or cell, for the progress lines written when stdout is not a terminal.
std::string unit_summary(const PrefillRow& row) {
  const std::string what = fmt::format("prefill {}", format_tokens(row.context));
  if (row.status != CellStatus::Valid || !row.prompt_tok_s || !row.ttft_ms)
    return fmt::format("{}: {}{}", what, to_string(row.status), row.error.empty() ? "" : ": " + row.error);
  return fmt::format("{}: {:.0f} tok/s, TTFT {:.0f} ms", what, *row.prompt_tok_s, *row.ttft_ms);
}

std::string unit_summary(const DecodeCell& cell) {
  const std::string what = fmt::format("decode {} x {}", format_tokens(cell.context), cell.concurrency);
  if (cell.status != CellStatus::Valid || !cell.total_tok_s)
    return fmt::format("{}: {}{}", what, to_string(cell.status), cell.error.empty() ? "" : ": " + cell.error);
  return fmt::format("{}: {:.1f} tok/s total, {:.1f} per request", what, *cell.total_tok_s,
                     cell.per_request_tok_s.value_or(0.0));
}

bool use_color(std::FILE* f) { return isatty(fileno(f)) && std::getenv("NO_COLOR") == nullptr; }

// One run of the matrix: the stages of design.md's data flow, in order.
class MatrixRun {
 public:
  MatrixRun(const RunConfig& config, const Clock& clock)
      : config_(config),
        clock_(clock),
        progress_(stdout, !config.quiet && isatty(fileno(stdout)) && !config.json_output, use_color(stdout), clock,
                  // Not a terminal (a log, CI, nohup): a line per finished cell on stderr instead.
                  !config.quiet && !(isatty(fileno(stdout)) && !config.json_output) ? stderr : nullptr),
        session_(config.target, config.redact_host, clock, [this](const std::string& n) { note(n); }) {}

  int execute();

 private:
  Result<void> launch();
  Result<void> start_embedded_engine();
  Result<void> connect();
  Result<void> probe();
  void report_unreachable(const Error& error);
  Result<void> prepare();
  Result<void> prepare_resume();
  Result<void> calibrate_counter();
  Result<BuiltPrompt> build_prompt(int64_t context, const std::string& head);
  std::string unique_head(std::string_view what, int64_t tokens) const;
  RequestRecord single_request(const std::string& prompt, int64_t prompt_tokens, int64_t max_tokens,
                               std::string& error);
  bool measure_pass(int64_t pass, bool& engine_warm, RepeatPasses& repeats);
  void measure_prefill(PrefillRow& row, const BuiltPrompt& prompt, bool warm_engine_first);
  void warm_up_engine(int64_t context, std::string& error);
  void measure_decode(DecodeCell& cell, const BuiltPrompt& prompt, bool needs_warmup);
  void measure_burst(DecodeCell& cell, const BuiltPrompt& prompt);
  void charge_loop(int64_t loop_start_ns, const LoopOutcome& out);
  ServerWatch& watch();
  bool server_ready(CellStatus& status, std::string& error);
  HttpRequest completion_request(const std::string& prompt, int64_t max_tokens) const;
  bool check_retrieval();
  bool search_slo();
  CellTelemetry window_telemetry(const WindowMark& mark);
  static bool ignores_max_tokens(const RequestRecord& r);
  void note_once_ignores_max_tokens(const RequestRecord& r);
  void save();
  RedactOptions redact_options() const;

 public:
  /// The folder this run wrote ("" before it made one).
  const std::string& run_dir() const { return run_dir_; }

 private:
  void note(const std::string& message);
  int finish(bool interrupted);
  double seconds_since(int64_t t0_ns) const { return static_cast<double>(clock_.now_ns() - t0_ns) / 1e9; }

  const RunConfig& config_;
  const Clock& clock_;
  ProgressLine progress_;
  TargetSession session_;  ///< the server, how it is reached, its telemetry
  std::unique_ptr<ClosedLoop> loop_;  ///< the measuring loop (made by connect(), with the session's connection)
  CapacityLimits limits_;
  MatrixSettings matrix_;
  RunResult result_;
  std::string run_dir_;
  std::unique_ptr<TokenCounter> endpoint_counter_;
  std::unique_ptr<TokenCounter> counter_;  ///< what prompt building uses (overhead included)
  std::unique_ptr<PromptBuilder> builder_;
  bool save_failed_ = false;
  std::unique_ptr<ServerWatch> watch_;  ///< idle barrier, window sampler, SGLang aborts (made at first use)
  int64_t session_start_ns_ = 0;  ///< when execute() began
  RunTiming timing_;              ///< this session's phases (total_s unused: save() measures it)
  RunTiming earlier_timing_;      ///< what the sessions before a --resume spent
};

// No target given: the simulated engine serves on loopback inside this process, and everything
// says "simulated".
Result<void> MatrixRun::start_embedded_engine() {
  if (!config_.embedded_sim) return {};
  if (auto ok = session_.start_embedded_engine(config_.sim_attention_window); !ok) return ok;
  std::fprintf(stderr, "speedmatrix: no --url given: measuring the built-in simulated engine (%s) at %s\n",
               session_.embedded()->model_id().c_str(), session_.base_url().c_str());
  return {};
}

Result<void> MatrixRun::launch() {
  if (config_.launch_command.empty()) return {};
  return session_.launch(config_.launch_command, config_.launch_port_check, config_.launch_timeout_s);
}

RedactOptions MatrixRun::redact_options() const { return session_.redact_options(); }

void MatrixRun::note(const std::string& message) {
  progress_.clear();
  std::fprintf(stderr, "speedmatrix: %s\n", redact_text(message, redact_options()).c_str());
}

HttpRequest MatrixRun::completion_request(const std::string& prompt, int64_t max_tokens) const {
  return session_.completion_request(prompt, max_tokens, config_.temperature);
}

Result<void> MatrixRun::connect() {
  if (auto ok = session_.connect(); !ok) return ok;
  loop_ = std::make_unique<ClosedLoop>(clock_, session_.client_options());
  return {};
}

Result<void> MatrixRun::probe() {
  if (auto ok = session_.probe(); !ok) return ok;
  ProbeResult& probe = session_.probed();
  probe.engine.synthetic_model = is_synthetic_model(probe.engine.model, probe.engine.model_path);
  limits_.kv_capacity_tokens = config_.limits_override.kv_capacity_tokens ? config_.limits_override.kv_capacity_tokens
                                                                           : probe.engine.kv_capacity_tokens;
  limits_.max_model_len = config_.limits_override.max_model_len ? config_.limits_override.max_model_len
                                                                 : probe.engine.max_model_len;
  return {};
}

Result<void> MatrixRun::prepare_resume() {
  const std::string path = (std::filesystem::path(config_.resume_dir) / kResultFile).string();
  auto stored = read_result_file(path);
  if (!stored) return std::unexpected(stored.error());
  if (!stored->engine.model.empty() && stored->engine.model != session_.probed().engine.model &&
      stored->engine.model != redact_text(session_.probed().engine.model, redact_options()))
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--resume: the server now serves '{}', the interrupted run measured '{}'",
                            session_.probed().engine.model, stored->engine.model));
  const bool was_unverified = stored->connection && stored->connection->tls && !stored->connection->tls_verified;
  result_ = std::move(*stored);
  earlier_timing_ = result_.timing.value_or(RunTiming{});
  result_.target_url = session_.base_url();  // the embedded engine or a relaunched server may listen elsewhere now
  ++result_.resumes;
  // How this session reached the server; a certificate left unchecked by any session stays said.
  result_.connection = session_.connection_info();
  if (was_unverified) result_.connection->tls_verified = false;
  result_.finished_at.clear();
  // Finished checks are kept; --retrieval-check / --no-retrieval-check decide about the rest.
  if (config_.retrieval_check) result_.settings.retrieval_check = *config_.retrieval_check;
  // --slo on a run that had none adds the search (check_resume_settings refused a different one).
  if (config_.slo && !result_.settings.slo) apply_slo_spec(result_.settings, *config_.slo);
  run_dir_ = config_.resume_dir;
  matrix_ = config_.matrix;
  limits_.kv_capacity_tokens = result_.engine.kv_capacity_tokens;
  limits_.max_model_len = result_.engine.max_model_len;
  // Unfinished rows and cells start over (with --retry-failed, those in error too); finished ones
  // are kept exactly as they were.
  auto redo = [&](CellStatus status) {
    return needs_measuring(status) || (config_.retry_failed && status == CellStatus::Error);
  };
  int64_t retried = 0;
  for (auto& row : result_.prefill)
    if (redo(row.status)) {
      retried += row.status == CellStatus::Error;
      row = PrefillRow{row.context, CellStatus::Pending};
    }
  for (auto& cell : result_.decode)
    if (redo(cell.status)) {
      retried += cell.status == CellStatus::Error;
      DecodeCell fresh;
      fresh.context = cell.context;
      fresh.concurrency = cell.concurrency;
      fresh.status = CellStatus::Pending;
      cell = std::move(fresh);
    }
  if (config_.retry_failed)
    note(retried > 0 ? fmt::format("--retry-failed: measuring {} {} that ended in error again", retried,
                                   retried == 1 ? "row or cell" : "rows and cells")
                     : std::string("--retry-failed: no row or cell ended in error"));
  if (!session_.launch_log_path().empty()) {
    session_.move_server_log((std::filesystem::path(run_dir_) / fmt::format("server-resume{}.log", result_.resumes)).string());
  }
  return write_result_file(path, redacted(result_, redact_options()));
}

Result<void> MatrixRun::prepare() {
  if (!config_.resume_dir.empty()) return prepare_resume();
  const int64_t now_ms = wall_clock_unix_ms();
  // The matrix asked for, fitted to this server (max output, contexts, slots), every choice said.
  FittedMatrix fitted = fit_matrix(matrix_request(config_), ServerLimits{limits_, session_.probed().engine.slots});
  matrix_ = fitted.matrix;
  Plan plan = make_plan(matrix_, limits_);

  result_.tool_version = build::kVersion;
  result_.tool_commit = build::kGitCommit;
  result_.tool_build_type = build::kBuildType;
  result_.run_id = new_run_id(now_ms);
  result_.kind = session_.probed().simulated ? "simulated" : "measured";
  char buf[32];
  result_.started_at = std::string(format_iso8601_utc(now_ms, buf));
  result_.target_url = session_.base_url();
  result_.launch_command = config_.launch_command;
  result_.engine = session_.probed().engine;
  result_.connection = session_.connection_info();
  attribute_hardware(result_, config_, session_.base_url());
  if (const sim::SimServer* sim = session_.embedded()) {
    attribute_simulated_hardware(result_);
    result_.notes = "Simulated: measured against speedmatrix's built-in engine, whose speed comes from the decode "
                    "calculator (" + (sim->config().cost_model ? sim->config().cost_model->describe() : std::string("linear model")) +
                    "). Not a real server.";
  }
  RunSettings& s = result_.settings;
  s.target = session_.embedded() ? "embedded" : !config_.launch_command.empty() ? "launched" : "url";
  s.profile = config_.profile;
  s.repeat = config_.repeat;
  s.user_floors_tok_s = config_.user_floors_tok_s;
  s.cost = config_.cost;
  s.retrieval_check = retrieval_check_wanted(config_);
  if (config_.slo) apply_slo_spec(s, *config_.slo);
  if (!config_.profile_note.empty()) s.plan_notes.push_back(config_.profile_note);
  for (auto& n : fitted.notes) s.plan_notes.push_back(std::move(n));
  for (const auto& n : s.plan_notes) note("plan: " + n);
  s.api = config_.target.api == ApiKind::Chat ? "chat" : "completions";
  s.max_output_tokens = matrix_.max_output_tokens;
  s.duration_s = matrix_.duration_s;
  if (matrix_.precision > 0) {
    s.precision = matrix_.precision;
    s.min_window_s = matrix_.min_window_s;
    // An audit's windows all run to --duration: fixed windows, with where each would have closed.
    s.decode_test = matrix_.precision_audit ? "fixed_duration" : "adaptive_duration";
    if (matrix_.precision_audit) s.precision_audit = true;
  }
  s.requests_per_cell = matrix_.requests_per_cell;
  s.warmup_requests = matrix_.warmup_requests;
  if (matrix_.requests_per_cell > 0) s.decode_test = "burst";
  for (const auto& c : plan.decode)
    if (std::find(s.contexts.begin(), s.contexts.end(), c.context) == s.contexts.end()) s.contexts.push_back(c.context);
  for (const auto& c : plan.decode)
    if (std::find(s.concurrency.begin(), s.concurrency.end(), c.concurrency) == s.concurrency.end())
      s.concurrency.push_back(c.concurrency);
  for (const auto& r : plan.prefill) s.prefill_contexts.push_back(r.context);
  s.temperature = config_.temperature;
  s.seed = config_.seed != 0 ? config_.seed : std::hash<std::string>{}(result_.run_id);
  s.kv_capacity_override = config_.limits_override.kv_capacity_tokens;
  s.max_model_len_override = config_.limits_override.max_model_len;
  if (limits_.kv_capacity_tokens) result_.engine.kv_capacity_tokens = limits_.kv_capacity_tokens;
  if (config_.limits_override.kv_capacity_tokens) result_.engine.kv_capacity_source = "--kv-capacity";
  if (limits_.max_model_len) result_.engine.max_model_len = limits_.max_model_len;
  for (const auto& n : session_.probed().notes) result_.warnings.push_back(n);
  if (std::string(build::kBuildType) == "Debug")
    result_.warnings.push_back("speedmatrix was built in Debug mode: the client may be slower than it should be");

  for (const auto& r : plan.prefill) {
    PrefillRow row;
    row.context = r.context;
    row.status = r.status == CellStatus::Valid ? CellStatus::Pending : r.status;
    result_.prefill.push_back(row);
  }
  for (const auto& c : plan.decode) {
    DecodeCell cell;
    cell.context = c.context;
    cell.concurrency = c.concurrency;
    cell.status = c.status == CellStatus::Valid ? CellStatus::Pending : c.status;
    result_.decode.push_back(cell);
  }

  run_dir_ = config_.out_dir.empty() ? default_run_dir(now_ms, session_.probed().engine.model) : config_.out_dir;
  if (auto ok = create_run_folder(run_dir_); !ok) return ok;
  if (!session_.launch_log_path().empty()) {
    session_.move_server_log((std::filesystem::path(run_dir_) / "server.log").string());
  }
  auto written = write_result_file((std::filesystem::path(run_dir_) / kResultFile).string(),
                                   redacted(result_, redact_options()));
  if (!written) return written;
  return {};
}

// One request outside a decode window, bounded by --request-timeout (scaled from the prompt's
// length by default) and by max_tokens: a server that never ends its answer cannot hang the run.
RequestRecord MatrixRun::single_request(const std::string& prompt, int64_t prompt_tokens, int64_t max_tokens,
                                        std::string& error) {
  LoopSpec spec;
  spec.request = completion_request(prompt, max_tokens);
  spec.concurrency = 1;
  spec.max_tokens = max_tokens;
  spec.duration_ns = 0;
  const double timeout_s =
      config_.request_timeout_s > 0 ? config_.request_timeout_s : default_request_timeout_s(prompt_tokens);
  spec.request_timeout_ns = static_cast<int64_t>(timeout_s * 1e9);
  spec.on_tick = [this] { progress_.tick(); };
  LoopOutcome out = loop_->run(spec);
  if (out.interrupted) error = "interrupted";
  if (out.records.empty()) {
    if (error.empty()) error = "request was not sent";
    return RequestRecord{};
  }
  RequestRecord r = std::move(out.records.front());
  if (r.end == RequestEnd::Failed) error = r.error;
  if (ignores_max_tokens(r)) note_once_ignores_max_tokens(r);
  return r;
}

bool MatrixRun::ignores_max_tokens(const RequestRecord& r) {
  return r.end == RequestEnd::Failed && r.error.starts_with(kIgnoresMaxTokens);
}

void MatrixRun::note_once_ignores_max_tokens(const RequestRecord& r) {
  const std::string text = r.error + "; its requests were cut there";
  if (std::find(result_.warnings.begin(), result_.warnings.end(), text) != result_.warnings.end()) return;
  for (const auto& w : result_.warnings)
    if (w.starts_with(kIgnoresMaxTokens)) return;
  result_.warnings.push_back(text);
  note(text);
}

Result<void> MatrixRun::calibrate_counter() {
  // The tokenize endpoint does not see what the request route adds (BOS, chat template): one
  // max_tokens=1 request measures that overhead.
  const std::string sample = fmt::format("speedmatrix calibration {}: the of and to in is that for it as", result_.run_id);
  std::string error;
  if (session_.probed().engine.tokenize_endpoint) {
    endpoint_counter_ = make_endpoint_counter(session_.probed().kind, session_.base_url(), session_.probed().engine.model,
                                              session_.headers(), default_transport(session_.connection()));
    auto counted = endpoint_counter_->count(sample);
    if (counted) {
      RequestRecord r = single_request(sample, *counted, 1, error);
      // A server that ignores max_tokens still said how long the prompt was: calibration holds.
      if (!error.empty() && !(ignores_max_tokens(r) && r.usage_prompt_tokens >= 0))
        return fail(ErrorCode::Http, "calibration request failed: " + error);
      int64_t overhead = r.usage_prompt_tokens >= 0 ? r.usage_prompt_tokens - *counted : 0;
      if (r.usage_prompt_tokens < 0)
        result_.warnings.push_back("the server reports no usage.prompt_tokens: prompt lengths are not verified");
      counter_ = std::make_unique<OffsetTokenCounter>(*endpoint_counter_, overhead);
      return {};
    }
    note(fmt::format("tokenize endpoint failed ({}); calibrating with requests instead", counted.error().message));
    result_.engine.tokenize_endpoint = false;
  }
  // No tokenizer: fit tokens = a + b x words on two requests that read usage.prompt_tokens.
  RequestRecord small = single_request(sample, count_words(sample) * 2, 1, error);
  if (!error.empty() && !(ignores_max_tokens(small) && small.usage_prompt_tokens >= 0))
    return fail(ErrorCode::Http, "calibration request failed: " + error);
  error.clear();
  std::string long_sample = sample;
  for (int i = 0; i < 512; ++i) long_sample += " the market";
  RequestRecord large = single_request(long_sample, count_words(long_sample) * 2, 1, error);
  if (!error.empty() && !(ignores_max_tokens(large) && large.usage_prompt_tokens >= 0))
    return fail(ErrorCode::Http, "calibration request failed: " + error);
  if (small.usage_prompt_tokens < 0 || large.usage_prompt_tokens <= small.usage_prompt_tokens) {
    result_.warnings.push_back("no tokenizer and no usage.prompt_tokens: prompt lengths are estimates");
    counter_ = std::make_unique<LinearTokenCounter>(0.0, 1.3);
    return {};
  }
  const double words_small = static_cast<double>(count_words(sample));
  const double words_large = static_cast<double>(count_words(long_sample));
  const double per_word = static_cast<double>(large.usage_prompt_tokens - small.usage_prompt_tokens) / (words_large - words_small);
  const double overhead = static_cast<double>(small.usage_prompt_tokens) - per_word * words_small;
  counter_ = std::make_unique<LinearTokenCounter>(overhead, per_word);
  result_.warnings.push_back("the server has no tokenize endpoint: prompt lengths are calibrated estimates, checked against usage");
  return {};
}

// The unique part comes first: prefix caches match from the first token, so a shared
// "speedmatrix ..." opening would be reused across prompts and no prefill would be cold.
std::string MatrixRun::unique_head(std::string_view what, int64_t tokens) const {
  const size_t nonce = std::hash<std::string>{}(fmt::format("{}/{}/{}/{}", result_.run_id, result_.resumes, what, tokens));
  return fmt::format("{:016x} speedmatrix {} {}:", nonce, what, tokens);
}

// The retrieval check's stage (bench/retrieval_check.h), after every pass: one unstreamed request
// per context, outside every window. Returns true when interrupted.
bool MatrixRun::check_retrieval() {
  if (!result_.settings.retrieval_check.value_or(false)) return false;
  if (!builder_) builder_ = std::make_unique<PromptBuilder>(*counter_, result_.settings.seed);
  RetrievalCheckHooks hooks;
  hooks.head = [this](int64_t context) { return unique_head("retrieval", context); };
  hooks.ask = [this](const std::string& prompt, int64_t tokens, int64_t max_tokens) -> Result<CompletionResponse> {
    CompletionSpec spec;
    spec.model = session_.probed().engine.model;
    spec.prompt = prompt;
    spec.max_tokens = max_tokens;
    spec.temperature = 0;  // deterministic, whatever --temperature the cells used
    spec.force_length = false;
    spec.stream = false;
    FetchOptions o;
    o.timeout_s = config_.request_timeout_s > 0 ? config_.request_timeout_s : default_request_timeout_s(tokens);
    o.connect_timeout_s = config_.target.connect_timeout_s;
    o.connection = session_.connection();
    auto response = http_fetch({join_url(session_.base_url(), completion_path(config_.target.api)),
                                build_completion_body(session_.probed().kind, config_.target.api, spec),
                                session_.headers()}, o);
    if (!response) return std::unexpected(response.error());
    if (response->status < 200 || response->status >= 300)
      return fail(ErrorCode::Http, fmt::format("HTTP {}: {}", response->status, response->body.substr(0, 300)));
    return parse_completion_response(response->body);
  };
  hooks.on_checked = [this](const RetrievalCheck& check) {
    if (retrieval_failed(check.verdict) || check.verdict == RetrievalVerdict::Error) note(retrieval_summary(check));
    else progress_.finished(retrieval_summary(check));
    save();
  };
  hooks.interrupted = [] { return interrupt_requested(); };
  return !run_retrieval_checks(result_, *builder_, hooks);
}

// The SLO search's stage (bench/slo_search.h), after the retrieval check: each probe is a decode
// cell measured as the matrix measures one (idle barrier, warm prompt, window), judged against
// the SLO, and kept out of the matrix. Returns true when interrupted.
bool MatrixRun::search_slo() {
  if (!result_.settings.slo) return false;
  int64_t prompt_context = -1;    // the context whose probe prompt is built ...
  std::optional<BuiltPrompt> prompt;
  bool warm = false;              // ... and warm in the server's prefix cache
  SloSearchHooks hooks;
  hooks.probe = [&](int64_t context, int64_t concurrency) {
    SloPoint point;
    if (context != prompt_context) {
      prompt_context = context;
      warm = false;
      prompt.reset();
      auto built = build_prompt(context, unique_head("slo", context));
      if (!built) {
        point.status = CellStatus::Error;
        point.error = "could not build the prompt: " + built.error().message;
        prompt_context = -1;
        return point;
      }
      prompt = std::move(*built);
    }
    DecodeCell probe;
    probe.context = context;
    probe.concurrency = concurrency;
    probe.status = CellStatus::Pending;
    measure_decode(probe, *prompt, !warm);
    warm = probe.status == CellStatus::Valid;
    point.status = probe.status;
    point.error = probe.error;
    if (probe.status == CellStatus::Valid) point.judgement = probe.slo;
    progress_.finished(fmt::format("SLO probe {} x {}: {}", format_tokens(context), concurrency,
                                   probe.status != CellStatus::Valid ? std::string(to_string(probe.status))
                                   : point.judgement && point.judgement->meets ? "meets the SLO"
                                                                               : "misses the SLO"));
    return point;
  };
  hooks.on_searched = [this](const SloSearch& search) {
    progress_.finished(slo_search_summary(search));
    save();
  };
  hooks.interrupted = [] { return interrupt_requested(); };
  return !run_slo_searches(result_, hooks);
}

Result<BuiltPrompt> MatrixRun::build_prompt(int64_t context, const std::string& head) {
  const int64_t t0 = clock_.now_ns();
  if (!builder_) builder_ = std::make_unique<PromptBuilder>(*counter_, result_.settings.seed);
  auto built = builder_->build(context, head);
  timing_.prompts_s += seconds_since(t0);
  return built;
}

ServerWatch& MatrixRun::watch() {
  if (!watch_) {
    ServerWatchOptions o{session_.probed().kind, session_.base_url(), session_.headers(),
                         load_transport(session_.connection()), config_.drain_timeout_s};
    watch_ = std::make_unique<ServerWatch>(
        o, clock_, [](int64_t ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); },
        [this](const std::string& n) {
          note(n);
          if (std::find(result_.warnings.begin(), result_.warnings.end(), n) == result_.warnings.end())
            result_.warnings.push_back(n);
        });
  }
  return *watch_;
}

// The idle barrier before a row or cell: false (and the status set) when it must not run.
bool MatrixRun::server_ready(CellStatus& status, std::string& error) {
  const int64_t t0 = clock_.now_ns();
  Readiness ready = watch().before_measurement([] { return interrupt_requested(); });
  timing_.idle_wait_s += seconds_since(t0);
  if (ready.interrupted) {
    status = CellStatus::Interrupted;
    return false;
  }
  if (!ready.busy.empty()) {
    status = CellStatus::Error;
    error = ready.busy;
    return false;
  }
  return true;
}

// The first long prompt an engine sees can pay one-time costs that are not prefill: kernels
// compiled or tuned for batched shapes on first use (llama.cpp's Vulkan backend on an H200: the
// first prefill row, 1K, took 4.7 s; the 8K row after it 0.15 s — docs/performance.md), graphs
// captured, pools grown. The calibration requests are a few tokens long and reach none of that, so
// before the first prefill row one cold request of its own, as long as that row's prompt up to
// kEngineWarmupTokens, pays them unmeasured. Decode cells need none of this: each context's first
// cell warms up with its own prompt, and its window opens after the ramp.
constexpr int64_t kEngineWarmupTokens = 8192;

void MatrixRun::warm_up_engine(int64_t context, std::string& error) {
  const int64_t tokens = std::min(context, kEngineWarmupTokens);
  auto prompt = build_prompt(tokens, unique_head("warm-up", tokens));
  if (!prompt) return;  // the row's own prompt was built; this one is only a warm-up
  const int64_t t0 = clock_.now_ns();
  single_request(prompt->text, prompt->target_tokens, 1, error);
  timing_.warmup_s += seconds_since(t0);
}

void MatrixRun::measure_prefill(PrefillRow& row, const BuiltPrompt& prompt, bool warm_engine_first) {
  if (!server_ready(row.status, row.error)) return;
  progress_.begin(fmt::format("prefill {}", format_tokens(row.context)), false);
  std::string error;
  if (warm_engine_first) {
    warm_up_engine(row.context, error);
    if (error == "interrupted") {
      progress_.end();
      row.status = CellStatus::Interrupted;
      return;
    }
    error.clear();  // a failed warm-up is not the row's failure: the row's own request says
  }
  const int64_t t0 = clock_.now_ns();
  RequestRecord r = single_request(prompt.text, prompt.target_tokens, 1, error);
  timing_.prefill_s += seconds_since(t0);
  progress_.end();
  if (error == "interrupted") {
    row.status = CellStatus::Interrupted;
    return;
  }
  if (!error.empty() || r.first_token_ns < 0) {
    row.status = CellStatus::Error;
    row.error = error.empty() ? "no token received" : error;
    return;
  }
  compute_prefill_metrics(r, prompt.target_tokens, row);
  row.telemetry = window_telemetry(WindowMark{r.send_ns, r.first_token_ns, "prefill", row.context, 1,
                                              row.prompt_tokens.value_or(prompt.target_tokens)});
  row.status = CellStatus::Valid;
}

void MatrixRun::measure_decode(DecodeCell& cell, const BuiltPrompt& prompt, bool needs_warmup) {
  if (!server_ready(cell.status, cell.error)) return;
  progress_.begin(fmt::format("decode {} x {}", format_tokens(cell.context), cell.concurrency), true);
  if (needs_warmup) {
    std::string error;
    const int64_t t0 = clock_.now_ns();
    single_request(prompt.text, prompt.target_tokens, 1, error);
    timing_.warmup_s += seconds_since(t0);
    if (error == "interrupted") {
      cell.status = CellStatus::Interrupted;
      progress_.end();
      return;
    }
    if (!error.empty()) {
      cell.status = CellStatus::Error;
      cell.error = "warm-up request failed: " + error;
      progress_.end();
      return;
    }
  }
  if (matrix_.requests_per_cell > 0) {
    measure_burst(cell, prompt);
    return;
  }
  LoopSpec spec;
  spec.request = completion_request(prompt.text, matrix_.max_output_tokens);
  spec.concurrency = cell.concurrency;
  spec.max_tokens = matrix_.max_output_tokens;
  spec.duration_ns = static_cast<int64_t>(matrix_.duration_s * 1e9);
  spec.ramp_timeout_ns = static_cast<int64_t>(config_.ramp_timeout_s * 1e9);
  spec.on_tick = [this] { progress_.tick(); };
  const bool audit = matrix_.precision > 0 && matrix_.precision_audit;
  std::optional<PrecisionCheck> closing;  // the first check that would close the window
  double closing_s = 0;                   // ... and the window's length then
  int64_t checked_s = 0;                  // whole seconds of the window the last check read
  if (matrix_.precision > 0) {
    // Adaptive window: close it once its figure is within --precision of what the whole
    // --duration window would measure (docs/METRICS.md, "Adaptive windows"). An audit keeps that
    // first moment and lets the window run on.
    spec.window_settled = [&, audit](const std::vector<RequestRecord>& records, DecodeWindow so_far) {
      if (closing) return false;  // only an audit asks again
      const double so_far_s = static_cast<double>(so_far.end_ns - so_far.begin_ns) / 1e9;
      if (so_far_s < matrix_.min_window_s) return false;
      // Only a newly known second can change the check (asked every 100 ms).
      const int64_t known_s = known_whole_seconds(records, so_far);
      if (known_s <= checked_s) return false;
      checked_s = known_s;
      const PrecisionCheck check =
          check_window_closing(tokens_per_second(records, so_far), matrix_.duration_s, matrix_.precision);
      if (!check.closes()) return false;
      closing = check;
      closing_s = so_far_s;
      return !audit;
    };
  }
  watch().window_opening(matrix_.duration_s);
  const int64_t loop_start_ns = clock_.now_ns();
  LoopOutcome out = loop_->run(spec);
  charge_loop(loop_start_ns, out);
  if (matrix_.precision > 0 && !audit && out.window_opened && !out.interrupted && !out.error) {
    cell.settled = out.closed_early;
    if (!out.closed_early)
      cell.warnings.push_back(fmt::format("did not settle within ±{:g}%: measured for the full {:g} s",
                                          matrix_.precision * 100, matrix_.duration_s));
  }
  watch().window_closed(out, cell);  // server_running_mean; SGLang's cut requests aborted
  progress_.end();
  // Context 0 is the shortest prompt: its target is whatever the head measured.
  const int64_t target = cell.context == 0 ? prompt.counted_tokens : prompt.target_tokens;
  if (out.window_opened) {
    compute_decode_metrics(out.records, out.window, target, cell);
    // Report the full window's projection, not the early window's mean; from the records as
    // reconciled after the cut (streams counted by chunks are scaled then), like every figure.
    if (cell.settled == true)
      report_projection(
          check_window_precision(tokens_per_second(out.records, out.window), matrix_.duration_s, matrix_.precision),
          cell);
    if (audit && closing) {
      cell.audit_close_s = closing_s;
      cell.audit_tok_s = closing->projected_tok_s;
      cell.audit_tok_s_ci = closing->half_width_tok_s;
    }
    if (audit) cell.audit_bins_tok_s = tokens_per_second(out.records, out.window);
    if (result_.settings.slo) cell.slo = judge_closed_loop(out.records, out.window, *result_.settings.slo);
    cell.telemetry = window_telemetry(WindowMark{out.window.begin_ns, out.window.end_ns, "decode", cell.context,
                                                 cell.concurrency, cell.output_tokens});
  }
  if (out.ramp_timed_out)
    cell.warnings.push_back(fmt::format("not every stream produced a token within {:.0f} s: the window opened anyway",
                                        config_.ramp_timeout_s));
  // Cross-check with the server's own per-request speed (llama.cpp timings), request by request.
  std::vector<double> server_rates, ratios;
  for (const auto& r : out.records) {
    if (r.server_tok_s <= 0 || r.end != RequestEnd::Finished || r.tokens < 2) continue;
    server_rates.push_back(r.server_tok_s);
    const double span_s = static_cast<double>(r.chunks.back().t_ns - r.first_token_ns) / 1e9;
    if (span_s > 0) ratios.push_back(static_cast<double>(r.tokens - 1) / span_s / r.server_tok_s);
  }
  if (!server_rates.empty()) cell.server_tok_s = median(server_rates);
  if (!ratios.empty()) {
    cell.server_rate_ratio = median(ratios);
    if (std::fabs(*cell.server_rate_ratio - 1.0) > 0.05)
      cell.warnings.push_back(fmt::format("per-request speed measured here is {:.0f}% of what the server reports: "
                                          "the network or this machine may be limiting the measurement",
                                          *cell.server_rate_ratio * 100));
  }
  // A cell above half of the client's ceiling is flagged by the report (result_.client_ceiling).
  if (out.interrupted) {
    cell.status = CellStatus::Interrupted;
  } else if (out.error) {
    cell.status = CellStatus::Error;
    cell.error = out.error->message;
  } else if (!out.window_opened) {
    cell.status = CellStatus::Error;
    std::string last;
    for (const auto& r : out.records)
      if (!r.error.empty()) last = r.error;
    cell.error = last.empty() ? "no stream produced a token" : last;
  } else if (auto failed = failed_requests_reason(out.records)) {
    // A failed stream (an error or a reset, not a cut at the window's end) leaves its slot empty
    // for a while: the cell measured less than it says. Its numbers stay as diagnostics.
    cell.status = CellStatus::Error;
    cell.error = *failed;
  } else {
    cell.status = CellStatus::Valid;
  }
}

// A decode loop's time: before its window opened (the ramp), the window, after it (cutting the streams).
void MatrixRun::charge_loop(int64_t loop_start_ns, const LoopOutcome& out) {
  const int64_t end_ns = clock_.now_ns();
  if (!out.window_opened) {
    timing_.ramp_s += static_cast<double>(end_ns - loop_start_ns) / 1e9;
    return;
  }
  timing_.ramp_s += static_cast<double>(std::max<int64_t>(0, out.window.begin_ns - loop_start_ns)) / 1e9;
  timing_.windows_s += static_cast<double>(out.window.end_ns - out.window.begin_ns) / 1e9;
  timing_.wind_down_s += static_cast<double>(std::max<int64_t>(0, end_ns - out.window.end_ns)) / 1e9;
}

// A burst cell (--requests N): the warm-up requests, then N measured requests through
// `concurrency` slots, timed from the first send to the last end (docs/METRICS.md, "Burst cells").
// Called with progress begun and the prompt warm.
void MatrixRun::measure_burst(DecodeCell& cell, const BuiltPrompt& prompt) {
  LoopSpec spec;
  spec.request = completion_request(prompt.text, matrix_.max_output_tokens);
  spec.concurrency = cell.concurrency;
  spec.max_tokens = matrix_.max_output_tokens;
  spec.on_tick = [this] { progress_.tick(); };
  const int64_t warmup = matrix_.warmup_requests >= 0 ? matrix_.warmup_requests : std::min<int64_t>(cell.concurrency, 8);
  if (warmup > 0) {
    spec.total_requests = warmup;
    const int64_t t0 = clock_.now_ns();
    LoopOutcome warm = loop_->run(spec);
    timing_.warmup_s += seconds_since(t0);
    if (warm.interrupted || warm.error) {
      progress_.end();
      cell.status = warm.interrupted ? CellStatus::Interrupted : CellStatus::Error;
      if (warm.error) cell.error = "warm-up requests failed: " + warm.error->message;
      return;
    }
  }
  spec.total_requests = matrix_.requests_per_cell;
  watch().window_opening(matrix_.duration_s);
  const int64_t t0 = clock_.now_ns();
  LoopOutcome out = loop_->run(spec);
  timing_.windows_s += seconds_since(t0);  // a burst's whole batch is its window
  if (!out.records.empty()) {
    out.window = {out.records.front().send_ns, out.records.front().send_ns};
    for (const auto& r : out.records) out.window.end_ns = std::max(out.window.end_ns, r.end_ns);
    out.window_opened = true;
  }
  watch().window_closed(out, cell);
  progress_.end();
  const int64_t target = cell.context == 0 ? prompt.counted_tokens : prompt.target_tokens;
  compute_burst_metrics(out.records, target, cell);
  if (result_.settings.slo && out.window_opened) cell.slo = judge_closed_loop(out.records, out.window, *result_.settings.slo);
  if (out.window_opened)
    cell.telemetry = window_telemetry(WindowMark{out.window.begin_ns, out.window.end_ns, "decode", cell.context,
                                                 cell.concurrency, cell.output_tokens});
  if (out.interrupted) {
    cell.status = CellStatus::Interrupted;
  } else if (out.error) {
    cell.status = CellStatus::Error;
    cell.error = out.error->message;
  } else if (auto failed = failed_requests_reason(out.records)) {
    cell.status = CellStatus::Error;
    cell.error = *failed;
  } else {
    cell.status = CellStatus::Valid;
  }
}

CellTelemetry MatrixRun::window_telemetry(const WindowMark& mark) { return session_.window_telemetry(mark); }

void MatrixRun::save() {
  if (session_start_ns_ != 0) {
    RunTiming t = earlier_timing_;
    t += timing_;
    t.total_s += seconds_since(session_start_ns_);
    result_.timing = t;
  }
  for (auto& n : session_.take_telemetry_notes()) {
    note(n);
    // Why there is no GPU telemetry is in result.telemetry; the rest (a series that cannot be
    // written) is a warning.
    if (!n.starts_with("no GPU telemetry") && !n.starts_with("GPU telemetry is of this machine") &&
        std::find(result_.warnings.begin(), result_.warnings.end(), n) == result_.warnings.end())
      result_.warnings.push_back(n);
  }
  result_.capacity = capacity_points(result_.decode, user_floors(result_.settings));
  const TelemetrySetup& telemetry = session_.telemetry();
  if (telemetry.recorder && result_.telemetry) {
    // The box's idle draw from this session's series (a resumed run keeps an earlier figure
    // where this session has none).
    const IdlePower idle = idle_power(telemetry.recorder->series(), result_.telemetry->server_gpus);
    if (idle.gpu_w && telemetry.gpu_figures) result_.telemetry->idle_gpu_power_w = idle.gpu_w;
    if (idle.host_w && !result_.telemetry->client_side_only) result_.telemetry->idle_host_power_w = idle.host_w;
  }
  apply_energy(result_, energy_inputs(result_));
  auto ok = write_result_file((std::filesystem::path(run_dir_) / kResultFile).string(),
                              redacted(result_, redact_options()));
  if (!ok && !save_failed_) {
    save_failed_ = true;
    note(fmt::format("cannot save the result: {} (the run goes on; results stay in memory)", ok.error().message));
  } else if (ok && save_failed_) {
    save_failed_ = false;
    note("result saved again");
  }
}

int MatrixRun::finish(bool interrupted) {
  session_.stop_telemetry();
  if (const std::string busy = busy_host_warning(result_); !busy.empty()) note(busy);
  char buf[32];
  result_.finished_at = std::string(format_iso8601_utc(wall_clock_unix_ms(), buf));
  redact_result(result_, redact_options());  // the reports and what is printed below, too
  save();
  progress_.clear();
  if (!config_.launch_command.empty()) session_.stop_server();  // before the report: the last line is the folder
  const bool reports_written = [&] {
    auto ok = write_run_reports(result_, run_dir_);
    if (!ok) note("cannot write reports: " + ok.error().message);
    return ok.has_value();
  }();
  const std::string html = (std::filesystem::path(run_dir_) / kReportHtmlFile).string();
  if (config_.json_output) {
    std::puts(to_json(result_).dump(2).c_str());
  } else {
    RenderOptions options;
    options.color = use_color(stdout);
    options.details_hint = reports_written ? "report.html in the run folder (below)" : "report --format html";
    std::fputs(render_report(result_, ReportFormat::Term, options).c_str(), stdout);
  }
  std::fflush(stdout);
  std::fprintf(stderr, "speedmatrix: %s: %s%s\n", interrupted ? "interrupted, finished cells saved in" : "results in",
               run_dir_.c_str(), reports_written ? fmt::format(" (open {})", html).c_str() : "");
  if (save_failed_) return kExitFailure;
  if (interrupted) return kExitInterrupted;
  if (const std::string why = outcome_line(result_); !why.empty()) std::fprintf(stderr, "speedmatrix: %s\n", why.c_str());
  return exit_code_for(result_);
}

// The first contact failed. A resumed --url run says what to do: its server must still be there.
void MatrixRun::report_unreachable(const Error& error) {
  if (!config_.resume_dir.empty() && !session_.embedded() && config_.launch_command.empty() &&
      (error.code == ErrorCode::Network || error.code == ErrorCode::Timeout))
    std::fprintf(stderr,
                 "speedmatrix run: --resume: the interrupted run's server does not answer: %s\n"
                 "  Start it again (the same model and settings), or give --url where it runs now.\n",
                 redact_text(error.message, redact_options()).c_str());
  else
    std::fprintf(stderr, "speedmatrix run: %s\n", error.message.c_str());
}

// One pass over the matrix (the only one without --repeat): the rows and cells that owe this
// pass, in ascending context. Returns true when interrupted.
bool MatrixRun::measure_pass(int64_t pass, bool& engine_warm, RepeatPasses& repeats) {
  // Pass 0 measures what is pending; pass p what has p passes (a resumed run's rows and cells
  // may stand at different passes).
  auto owes = [&](CellStatus status, int64_t done) {
    return pass == 0 ? status == CellStatus::Pending : status == CellStatus::Valid && done == pass;
  };
  // Rows in ascending context; the cold request of a context is its prefill measurement and
  // also warms the prefix cache for that context's decode cells (the seed page's prefill mode).
  std::set<int64_t> contexts;
  for (const auto& r : result_.prefill) contexts.insert(r.context);
  for (const auto& c : result_.decode) contexts.insert(c.context);
  std::string shorter_prompt;  // the last context's prompt built here, which a decode-only context extends
  for (int64_t context : contexts) {
    auto prefill_it = std::find_if(result_.prefill.begin(), result_.prefill.end(), [&](const PrefillRow& r) {
      return r.context == context && owes(r.status, passes_done(r));
    });
    std::vector<DecodeCell*> cells;
    for (auto& c : result_.decode)
      if (c.context == context && owes(c.status, passes_done(c))) cells.push_back(&c);
    if (prefill_it == result_.prefill.end() && cells.empty()) continue;

    // A prefill row's prompt must be cold, so it starts with a head of its own (each pass's
    // too). A context with only decode cells needs its prompt processed once before its cells,
    // unmeasured (the seed matrix's 248K: 72 s of the embedded engine's 813); its prompt extends
    // the previous context's, so an engine with a prefix cache (vLLM, SGLang, a llama.cpp slot,
    // the embedded engine) reads only the new part. Decode speed depends on the context, not on
    // what it shares.
    const bool decode_only = prefill_it == result_.prefill.end();
    const std::string head = unique_head(pass == 0 ? std::string("context") : fmt::format("context pass {}", pass + 1), context);
    auto prompt = build_prompt(context, decode_only && !shorter_prompt.empty() ? shorter_prompt : head);
    if (!prompt) {
      std::string why = "could not build the prompt: " + prompt.error().message;
      if (prefill_it != result_.prefill.end()) {
        PrefillRow failed{context, CellStatus::Error};
        failed.error = why;
        repeats.fold(*prefill_it, std::move(failed));
      }
      for (auto* c : cells) {
        DecodeCell failed;
        failed.context = c->context;
        failed.concurrency = c->concurrency;
        failed.status = CellStatus::Error;
        failed.error = why;
        repeats.fold(*c, std::move(failed));
      }
      save();
      continue;
    }
    if (context > 0) shorter_prompt = prompt->text;
    bool warm = false;
    if (prefill_it != result_.prefill.end()) {
      PrefillRow fresh{context, CellStatus::Pending};
      measure_prefill(fresh, *prompt, !engine_warm);
      engine_warm = true;
      warm = fresh.status == CellStatus::Valid;
      progress_.finished(unit_summary(fresh));
      const bool stop = fresh.status == CellStatus::Interrupted;
      repeats.fold(*prefill_it, std::move(fresh));
      save();
      if (stop) return true;
    }
    for (auto* c : cells) {
      DecodeCell fresh;
      fresh.context = c->context;
      fresh.concurrency = c->concurrency;
      fresh.status = CellStatus::Pending;
      measure_decode(fresh, *prompt, !warm);
      // A valid cell's streams all just read this prompt: it is as warm as a warm-up would make it
      // (vLLM's and SGLang's prefix caches keep it; each llama.cpp slot that ran it keeps it, and a
      // warm-up reaches only one slot). Were it evicted anyway, the ramp pays, not the window: it
      // opens after every stream's first token. After a failed cell the next one warms up again.
      warm = fresh.status == CellStatus::Valid;
      progress_.finished(unit_summary(fresh));
      const bool stop = fresh.status == CellStatus::Interrupted;
      repeats.fold(*c, std::move(fresh));
      save();
      if (stop) return true;
    }
  }
  return false;
}

int MatrixRun::execute() {
  session_start_ns_ = clock_.now_ns();
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
  if (auto ok = start_embedded_engine(); !ok) {
    std::fprintf(stderr, "speedmatrix run: cannot start the simulated engine: %s\n", ok.error().message.c_str());
    return kExitFailure;
  }
  if (auto ok = launch(); !ok) {
    std::fprintf(stderr, "speedmatrix run: %s\n", ok.error().message.c_str());
    return interrupt_requested() ? kExitInterrupted : kExitFailure;
  }
  if (auto ok = connect(); !ok) {
    report_unreachable(ok.error());
    return kExitFailure;
  }
  if (auto ok = probe(); !ok) {
    report_unreachable(ok.error());
    return kExitFailure;
  }
  if (auto ok = prepare(); !ok) {
    std::fprintf(stderr, "speedmatrix run: %s\n", ok.error().message.c_str());
    return kExitFailure;
  }
  if (ceiling_tok_s) result_.client_ceiling = ClientCeiling{*ceiling_tok_s, 64};
  if (auto ok = session_.start_telemetry_sampling(config_, result_, run_dir_, progress_); !ok) {
    std::fprintf(stderr, "speedmatrix run: %s\n", ok.error().message.c_str());
    return kExitFailure;
  }
  auto calibrated = calibrate_counter();
  timing_.setup_s = seconds_since(session_start_ns_);  // the client self-test, launch, probe and calibration
  if (auto& ok = calibrated; !ok) {
    result_.warnings.push_back(ok.error().message);
    save();
    std::fprintf(stderr, "speedmatrix run: %s\n", ok.error().message.c_str());
    return interrupt_requested() ? kExitInterrupted : kExitFailure;
  }

  // Units this session measures: every pass a row or cell still owes (--repeat).
  const int64_t passes = std::max<int64_t>(1, result_.settings.repeat);
  int64_t units = 0, decode_units = 0;
  for (const auto& r : result_.prefill) units += passes_owed(r.status, passes_done(r), passes);
  for (const auto& c : result_.decode) decode_units += passes_owed(c.status, passes_done(c), passes);
  // The SLO search's probes: at most its limit per context (fewer when the matrix brackets it).
  decode_units += static_cast<int64_t>(slo_contexts_owed(result_).size()) * result_.settings.slo_max_probes;
  progress_.set_plan(units + decode_units, decode_units, matrix_.duration_s);

  bool interrupted = false;
  bool engine_warm = false;  // the engine has run a long prompt (warm_up_engine)
  RepeatPasses repeats(passes);
  for (int64_t pass = 0; pass < passes && !interrupted; ++pass) interrupted = measure_pass(pass, engine_warm, repeats);
  if (!interrupted) interrupted = check_retrieval();
  mark_retrieval_failures(result_);  // cells measured again after a resume get their warning back
  if (!interrupted) interrupted = search_slo();
  return finish(interrupted || interrupt_requested());
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
