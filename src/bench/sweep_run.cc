#include "bench/sweep_run.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <memory>

#include "bench/open_loop.h"
#include "bench/run_folder.h"
#include "bench/target_session.h"
#include "core/interrupt.h"
#include "engines/probe.h"
#include "report/report.h"
#include "result/redact_result.h"
#include "result/result_json.h"
#include "workload/prompt_builder.h"
#include "workload/token_counter.h"

namespace sm {

namespace {

class SweepRun {
 public:
  explicit SweepRun(const SweepConfig& config)
      : config_(config),
        session_(config.target, config.redact_host, SteadyClock::instance(),
                 [this](const std::string& n) { note(n); }) {}
  int execute();

 private:
  Result<void> prepare();
  SweepPoint measure(double rate_rps, bool search, int64_t index);
  HttpRequest completion_request(std::string prompt, int64_t max_tokens) const {
    return session_.completion_request(std::move(prompt), max_tokens, config_.temperature);
  }
  void save();
  void note(const std::string& message) const {
    std::fprintf(stderr, "speedmatrix sweep: %s\n", redact_text(message, redact_options()).c_str());
  }
  RedactOptions redact_options() const { return session_.redact_options(); }

  const SweepConfig& config_;
  TargetSession session_;  ///< the server and how it is reached (bench/target_session.h)
  std::unique_ptr<TokenCounter> endpoint_counter_;  ///< the tokenize endpoint (counter_ wraps it)
  std::unique_ptr<TokenCounter> counter_;
  std::unique_ptr<PromptBuilder> builder_;
  std::unique_ptr<OpenLoop> loop_;
  RunResult result_;
  std::string run_dir_;
  bool save_failed_ = false;
  bool window_warned_ = false;  ///< the window-too-short warning was given
};

Result<void> SweepRun::prepare() {
  if (auto ok = session_.probe(); !ok) return ok;
  const ProbeResult& probe = session_.probed();

  const int64_t now_ms = wall_clock_unix_ms();
  // The network round trip, as `run` measures it (a few GETs on one connection): a sweep's
  // latencies are read against it.
  session_.measure_round_trip_or_note();
  RunConfig attribution;
  attribution.target = config_.target;
  attribution.embedded_sim = config_.embedded_sim;
  session_.open_result(result_, now_ms, attribution);
  if (session_.embedded()) {
    result_.notes = "Simulated: a request-rate sweep of speedmatrix's built-in engine, whose speed comes from the "
                    "decode calculator. Not a real server.";
  }
  RunSettings& s = result_.settings;
  s.target = session_.embedded() ? "embedded" : "url";
  s.api = config_.target.api == ApiKind::Chat ? "chat" : "completions";
  s.decode_test = "request_rate_sweep";
  s.prefill_mode = "none";
  s.max_output_tokens = static_cast<int64_t>(config_.output_len.mean);
  s.duration_s = config_.duration_s;
  s.temperature = config_.temperature;
  s.seed = config_.seed != 0 ? config_.seed : std::hash<std::string>{}(result_.run_id);
  record_prompt_source(config_.prompts, config_.target.natural_eos, s);
  for (const auto& n : probe.notes) result_.warnings.push_back(n);

  SweepInfo& w = result_.sweep.emplace();
  w.arrivals = std::string(to_string(config_.arrivals));
  w.rates = config_.rates_text;
  w.input_len_mean = config_.input_len.mean;
  w.input_len_sd = config_.input_len.sd;
  w.output_len_mean = config_.output_len.mean;
  w.output_len_sd = config_.output_len.sd;
  w.window_s = config_.requests_per_rate ? 0 : config_.duration_s;
  w.requests_per_rate = config_.requests_per_rate;
  w.slo_ttft_ms = config_.slo.ttft_ms;
  w.slo_tpot_ms = config_.slo.tpot_ms;
  w.slo_fraction = config_.slo.percentile / 100;

  loop_ = std::make_unique<OpenLoop>(SteadyClock::instance(), session_.client_options());

  // Prompts of the drawn lengths: exact through the server's tokenizer when it has one, plus what
  // the route adds (BOS, chat template), measured once with a one-token request as `run` does.
  if (probe.engine.tokenize_endpoint) {
    endpoint_counter_ = make_endpoint_counter(probe.kind, session_.base_url(), probe.engine.model, session_.headers(),
                                              default_transport(session_.connection()));
    const std::string sample = fmt::format("speedmatrix calibration {}: the of and to in is that for it as", result_.run_id);
    int64_t overhead = 0;
    if (auto counted = endpoint_counter_->count(sample)) {
      OpenLoopSpec one;
      one.drain_timeout_ns = 60 * kNsPerS;
      one.requests.push_back(PlannedRequest{0, completion_request(sample, 1), 1});
      OpenLoopOutcome out = loop_->run(one);
      if (!out.requests.empty() && out.requests.front().record.usage_prompt_tokens >= 0)
        overhead = out.requests.front().record.usage_prompt_tokens - *counted;
      else
        result_.warnings.push_back("the calibration request reported no usage.prompt_tokens: prompt lengths leave "
                                   "out what the route adds (BOS, chat template)");
    }
    counter_ = std::make_unique<OffsetTokenCounter>(*endpoint_counter_, overhead);
  } else {
    counter_ = std::make_unique<LinearTokenCounter>(0.0, 1.3);
    result_.warnings.push_back("the server has no tokenize endpoint: prompt lengths are estimates "
                               "(input_tokens_mean is what the server reported)");
  }
  builder_ = std::make_unique<PromptBuilder>(*counter_, s.seed, config_.prompts.corpus);

  run_dir_ = config_.out_dir.empty() ? default_run_dir(now_ms, probe.engine.model) : config_.out_dir;
  if (auto ok = create_run_folder(run_dir_); !ok) return ok;
  save();
  return save_failed_ ? fail(ErrorCode::Io, "cannot write result.json in " + run_dir_) : Result<void>{};
}

SweepPoint SweepRun::measure(double rate_rps, bool search, int64_t index) {
  SweepPoint point;
  point.rate_rps = rate_rps;
  point.search = search;
  const double window_s = config_.requests_per_rate
                              ? static_cast<double>(*config_.requests_per_rate) / rate_rps
                              : config_.duration_s;
  const int64_t window_ns = static_cast<int64_t>(window_s * 1e9);
  // One stream of draws per rate: the same seed gives the same schedule and lengths.
  Rng rng(result_.settings.seed ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(index + 1)));
  // --requests N: exactly N arrivals (a Poisson schedule may run past N ÷ rate); else the window's.
  const std::vector<int64_t> times =
      config_.requests_per_rate
          ? arrival_times_ns(config_.arrivals, rate_rps, INT64_MAX / 4, *config_.requests_per_rate, rng)
          : arrival_times_ns(config_.arrivals, rate_rps, window_ns, 0, rng);
  OpenLoopSpec spec;
  spec.drain_timeout_ns = static_cast<int64_t>(config_.drain_timeout_s * 1e9);
  spec.requests.reserve(times.size());
  for (size_t i = 0; i < times.size(); ++i) {
    if (interrupt_requested()) break;
    const int64_t input = config_.input_len.draw(rng), output = config_.output_len.draw(rng);
    auto prompt = builder_->build(input, fmt::format("{} rate {} request {}:", result_.run_id, index, i));
    if (!prompt) {
      point.status = CellStatus::Error;
      point.error = "building a prompt failed: " + prompt.error().message;
      return point;
    }
    spec.requests.push_back(PlannedRequest{times[i], completion_request(std::move(prompt->text), output), output});
  }
  if (interrupt_requested()) {
    point.status = CellStatus::Interrupted;
    return point;
  }
  if (!config_.quiet)
    std::fprintf(stderr, "speedmatrix sweep: %s%.3g requests/s: %zu requests over %.1f s ...\n",
                 search ? "(search) " : "", rate_rps, spec.requests.size(), window_s);
  OpenLoopOutcome out = loop_->run(spec);
  compute_rate_point(out.requests, out.start_ns, window_ns, config_.slo, SaturationRule{}, point);
  if (out.interrupted) point.status = CellStatus::Interrupted;
  if (point.requests > 0 && point.completed == 0 && !out.interrupted) {
    point.status = CellStatus::Error;
    for (const auto& t : out.requests)
      if (!t.record.error.empty()) {
        point.error = t.record.error;
        break;
      }
    if (point.error.empty()) point.error = "no request completed";
  }
  if (point.e2e_ms && point.e2e_ms->p50 * 1e6 >= static_cast<double>(window_ns) / 4 && !window_warned_) {
    window_warned_ = true;
    result_.warnings.push_back(fmt::format(
        "at {:.3g} requests/s the median E2E ({:.1f} s) is over a quarter of the arrival window ({:.1f} s): the "
        "throughput rule of saturation needs answers well inside the window (it is skipped past half of it); a "
        "longer --duration (or more --requests) measures saturation better",
        rate_rps, point.e2e_ms->p50 / 1e3, window_s));
  }
  if (!config_.quiet) {
    std::string line = fmt::format("  achieved {:.3g}/s, {:.0f} output tok/s", point.achieved_rps.value_or(0),
                                   point.output_tok_s.value_or(0));
    if (point.ttft_ms) line += fmt::format(", TTFT p50 {:.0f} ms p99 {:.0f} ms", point.ttft_ms->p50, point.ttft_ms->p99);
    if (point.tpot_ms) line += fmt::format(", TPOT p50 {:.1f} ms", point.tpot_ms->p50);
    if (point.slo_met_fraction) line += fmt::format(", {:.0f}% within SLO", 100 * *point.slo_met_fraction);
    if (point.saturated) line += " — saturated: " + point.saturation_reason;
    if (point.status == CellStatus::Error) line += " — error: " + point.error;
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  return point;
}

void SweepRun::save() {
  auto ok = write_result_file((std::filesystem::path(run_dir_) / kResultFile).string(),
                              redacted(result_, redact_options()));
  if (!ok && !save_failed_) note("cannot save the result: " + ok.error().message);
  save_failed_ = !ok;
}

int SweepRun::execute() {
  if (config_.embedded_sim) {
    if (auto ok = session_.start_embedded_engine(); !ok) {
      note(ok.error().message);
      return kExitFailure;
    }
    note(fmt::format("no --url given: measuring the built-in simulated engine ({}) at {}",
                     session_.embedded()->model_id(), session_.base_url()));
  }
  if (auto ok = prepare(); !ok) {
    note(ok.error().message);
    return kExitFailure;
  }
  int64_t index = 0;
  auto notes = run_sweep(
      config_.plan, [&](double rate, bool search) { return measure(rate, search, index++); },
      [&](const SweepInfo&) { save(); }, *result_.sweep);
  for (auto& n : notes) {
    note(n);
    result_.warnings.push_back(n);
  }
  const bool interrupted = interrupt_requested();
  char buf[32];
  result_.finished_at = std::string(format_iso8601_utc(wall_clock_unix_ms(), buf));
  redact_result(result_, redact_options());
  save();
  if (auto ok = write_run_reports(result_, run_dir_); !ok) note("cannot write reports: " + ok.error().message);
  if (config_.json_output) {
    std::puts(to_json(result_).dump(2).c_str());
  } else {
    RenderOptions options;
    options.color = isatty(fileno(stdout)) && std::getenv("NO_COLOR") == nullptr;
    std::fputs(render_report(result_, ReportFormat::Term, options).c_str(), stdout);
  }
  std::fflush(stdout);
  std::fprintf(stderr, "speedmatrix sweep: %s: %s\n", interrupted ? "interrupted, finished rates saved in" : "results in",
               run_dir_.c_str());
  if (save_failed_) return kExitFailure;
  return interrupted ? kExitInterrupted : kExitOk;
}

}  // namespace

int run_sweep_command(const SweepConfig& config) {
  install_interrupt_handler();
  SweepRun run(config);
  return run.execute();
}

}  // namespace sm
