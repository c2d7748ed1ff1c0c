#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "bench/attribution.h"
#include "result/plan.h"
#include "bench/profile_check.h"
#include "bench/progress.h"
#include "bench/run_config.h"
#include "bench/power_limit_sweep.h"
#include "bench/mixed_prefill_phase.h"
#include "bench/sessions_phase.h"
#include "bench/resume.h"
#include "bench/run_outcome.h"
#include "bench/runner.h"
#include "cli/commands.h"
#include "cli/connection_flags.h"
#include "cli/cost_flags.h"
#include "cli/power_limit_flags.h"
#include "cli/prompt_flags.h"
#include "cli/session_flags.h"
#include "core/units.h"
#include "engines/probe.h"
#include "net/url.h"
#include "report/plan_text.h"
#include "result/plan_fit.h"
#include "result/plan_json.h"
#include "result/profile.h"
#include "result/redact.h"
#include "result/redact_result.h"
#include "result/result_json.h"
#include "system/server_process.h"
#include "core/clock.h"
#include "upload/run_upload.h"

namespace sm::cli {

namespace {

struct RunFlags {
  std::string url;
  std::string launch;
  double launch_timeout_s = 900;
  HardwareDeclaration hardware;  ///< --server-hardware, --gpu, --gpu-count
  std::string api = "completions";
  std::string api_key;
  ConnectionFlags connection;  ///< --cacert, --insecure, --header, --proxy, --http2
  std::string model;
  std::string contexts;
  std::string concurrency;
  std::string prefill_contexts;
  std::vector<double> user_floors;  ///< --user-floor
  CostFlags cost;                   ///< --power-price, --hardware-cost, ...
  double duration_s = 30;
  std::string precision;         ///< --precision: adaptive windows, "2%" or 0.02
  double min_window_s = 5;       ///< --min-window
  bool precision_audit = false;  ///< --precision-audit
  int64_t requests = -1;        ///< --requests: burst cells (-1: not given)
  int64_t warmup_requests = -1;  ///< --warmup-requests (default: one per simultaneous request, at most 8)
  std::string max_output = "8192";
  std::string kv_capacity;
  std::string max_model_len;
  std::string out;
  std::string format = "term";
  double timeout_s = 600;
  double connect_timeout_s = 10;
  double busy_poll_us = 0;  ///< set with its default by add_busy_poll_option
  double ramp_timeout_s = 120;
  double request_timeout_s = 0;
  double drain_timeout_s = 60;
  bool no_telemetry = false;
  double telemetry_interval_s = 0.5;
  std::string nvml_lib;
  std::string server_gpus;
  double temperature = 0;
  uint64_t seed = 0;
  bool dry_run = false;
  std::string upload_url;    // --upload: results site to send the finished run to
  std::string upload_token;  // --upload-token (default $SPEEDMATRIX_UPLOAD_TOKEN)
  bool quiet = false;
  bool save_requests = false;  ///< --save-requests
  bool no_selftest = false;
  bool redact_host = false;  // --redact-host
  bool quick = false;
  std::string profile;        ///< --profile NAME
  int64_t repeat = 1;         ///< --repeat N
  bool retry_failed = false;  ///< --retry-failed (with --resume)
  bool retrieval_check = false;     ///< --retrieval-check
  bool no_retrieval_check = false;  ///< --no-retrieval-check
  std::string attention_window;     ///< --attention-window (the built-in engine only)
  std::string mixed_prefill;         ///< --mixed-prefill 8K,32K
  int64_t mixed_prefill_streams = 0;  ///< --mixed-prefill-streams
  double mixed_prefill_around_s = 5;  ///< --mixed-prefill-around
  std::string slo;                  ///< --slo ttft=2s,tpot=50ms[,context=32K][,p=90][,probes=6]
  PowerLimitFlags power_limits;     ///< --power-limits, --power-limit-command, --power-limit-restore
  PromptFlags prompts;              ///< --prompts, --dataset, --natural-eos
  SessionFlags sessions;            ///< --sessions, --session-lengths, --trace, --trace-speed
  std::string resume;
  std::vector<std::string> given;  ///< flags set on the command line
  bool duration_given = false;    ///< --duration was on the command line
  bool max_output_given = false;  ///< --max-output was on the command line
};

// --profile NAME (--quick is --profile quick): the profile's settings where no flag set them,
// kept only while no flag departs from it.
Result<void> apply_target_profile(const RunFlags& f, RunConfig& c) {
  std::string name = f.profile;
  if (f.quick) {
    if (!name.empty() && name != "quick")
      return fail(ErrorCode::InvalidArgument, fmt::format("--quick is --profile quick; it cannot go with --profile {}", name));
    name = "quick";
  }
  if (name.empty()) return {};
  auto profile = find_profile(name);
  if (!profile)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--profile: no profile '{}' (this build knows: {})", name, profile_names()));
  c.profile_note = apply_profile(*profile, f.given, c);
  return {};
}

// Turns the flags into a validated RunConfig; errors name the flag.
Result<RunConfig> to_config(const RunFlags& f) {
  RunConfig c;
  if (!f.url.empty())
    if (auto ok = check_http_url("--url", f.url); !ok) return std::unexpected(ok.error());
  c.target.base_url = f.url;
  c.launch_command = f.launch;
  c.launch_timeout_s = f.launch_timeout_s;
  if (!f.launch.empty() && f.url.empty()) {
    int port = port_from_command(f.launch);
    if (port == 0)
      return fail(ErrorCode::InvalidArgument, "--launch: the command names no --port N; give --url too");
    c.target.base_url = fmt::format("http://127.0.0.1:{}", port);
  }
  c.target.base_url = trim_base_url(c.target.base_url);
  if (auto ok = apply_target_flags({f.api, f.api_key, f.model, f.timeout_s, f.connect_timeout_s, f.busy_poll_us,
                                     &f.connection},
                                    c.target);
      !ok)
    return std::unexpected(ok.error());

  auto with_flag = [](const char* flag, Error e) { return fail(e.code, fmt::format("{}: {}", flag, e.message)); };
  auto max_out = parse_token_count(f.max_output);
  if (!max_out) return with_flag("--max-output", max_out.error());
  c.matrix.max_output_tokens = *max_out;
  c.fit_max_output = !f.max_output_given;
  if (!f.kv_capacity.empty()) {
    auto v = parse_token_count(f.kv_capacity);
    if (!v) return with_flag("--kv-capacity", v.error());
    c.limits_override.kv_capacity_tokens = *v;
  }
  if (!f.max_model_len.empty()) {
    auto v = parse_token_count(f.max_model_len);
    if (!v) return with_flag("--max-model-len", v.error());
    c.limits_override.max_model_len = *v;
  }
  if (f.contexts == "none") {
    c.matrix.contexts.clear();  // prefill rows only
    c.contexts_given = true;
  } else if (!f.contexts.empty()) {
    auto v = parse_token_list(f.contexts);
    if (!v) return with_flag("--contexts", v.error());
    c.matrix.contexts = *v;
    c.contexts_given = true;
  }
  c.matrix.concurrency = default_concurrency();
  if (!f.concurrency.empty()) {
    auto v = parse_int_list(f.concurrency);
    if (!v) return with_flag("--concurrency", v.error());
    c.matrix.concurrency = *v;
  }
  c.fit_concurrency = f.concurrency.empty();
  c.matrix.prefill_contexts = default_prefill_contexts();
  if (!f.prefill_contexts.empty()) {
    if (f.prefill_contexts == "none") {
      c.matrix.prefill_contexts.clear();
    } else {
      auto v = parse_token_list(f.prefill_contexts);
      if (!v) return with_flag("--prefill-contexts", v.error());
      c.matrix.prefill_contexts = *v;
    }
  }
  c.matrix.duration_s = f.duration_s;
  // Given, it must name a burst: 0 was silently a timed matrix.
  if (f.requests != -1 && (f.requests < 1 || f.requests > 1'000'000))
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--requests must be between 1 and 1,000,000 (got {}); leave it out for timed windows", f.requests));
  if (f.warmup_requests > 10'000) return fail(ErrorCode::InvalidArgument, "--warmup-requests must be at most 10,000");
  if (f.warmup_requests >= 0 && f.requests <= 0)
    return fail(ErrorCode::InvalidArgument, "--warmup-requests needs --requests (burst cells)");
  if (!f.precision.empty()) {
    const double fraction = parse_share(f.precision).value_or(0);
    if (!(fraction > 0) || fraction > 0.5)
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("--precision must be a share above 0 and at most 50%, e.g. 2% or 0.02 (got '{}')", f.precision));
    if (f.requests > 0) return fail(ErrorCode::InvalidArgument, "--precision is for timed windows; --requests cells have none");
    c.matrix.precision = fraction;
  }
  if (!(f.min_window_s >= 1) || f.min_window_s > 86400)
    return fail(ErrorCode::InvalidArgument, "--min-window must be at least 1 and at most 86400 seconds");
  c.matrix.min_window_s = f.min_window_s;
  if (f.precision_audit && f.precision.empty())
    return fail(ErrorCode::InvalidArgument, "--precision-audit needs --precision (the rule it audits), e.g. --precision 2%");
  c.matrix.precision_audit = f.precision_audit;
  c.matrix.requests_per_cell = std::max<int64_t>(0, f.requests);
  c.matrix.warmup_requests = f.requests > 0 ? (f.warmup_requests >= 0 ? f.warmup_requests : -1) : 0;
  c.temperature = f.temperature;
  if (f.resume.empty())  // a resumed run's prompts are the stored ones (resume_config)
    if (auto ok = apply_prompt_flags(f.prompts, c.prompts, c.target); !ok) return std::unexpected(ok.error());
  if (auto spec = session_spec_from_flags(f.sessions, f.given); !spec) return std::unexpected(spec.error());
  else c.sessions = std::move(*spec);
  if (auto ok = apply_target_profile(f, c); !ok) return std::unexpected(ok.error());
  // An adaptive window stops at --duration (the profile's, with --quick): a minimum beyond it is
  // no minimum. Asked for, it is refused; the default 5 s is brought down to the cells' length.
  if (c.matrix.precision && c.matrix.min_window_s > c.matrix.duration_s) {
    if (std::find(f.given.begin(), f.given.end(), "--min-window") != f.given.end())
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("--min-window {:g} s is longer than the cells' windows ({:g} s: --duration, or the "
                              "profile's): an adaptive window ends at --duration",
                              c.matrix.min_window_s, c.matrix.duration_s));
    c.matrix.min_window_s = c.matrix.duration_s;
  }
  if (f.repeat < 1 || f.repeat > 100) return fail(ErrorCode::InvalidArgument, "--repeat must be between 1 and 100");
  c.repeat = f.repeat;
  c.user_floors_tok_s = f.user_floors;
  if (auto ok = apply_cost_flags(f.cost, c.cost); !ok) return std::unexpected(ok.error());
  if (f.retry_failed && f.resume.empty())
    return fail(ErrorCode::InvalidArgument, "--retry-failed needs --resume DIR (the run whose error cells to measure again)");
  c.retry_failed = f.retry_failed;
  if (!c.contexts_given) c.matrix.contexts = default_contexts(c.limits_override.max_model_len, c.matrix.max_output_tokens);
  // --contexts none --prefill-contexts none with --sessions: the sessions alone.
  const bool sessions_alone = c.sessions && c.matrix.contexts.empty() && c.matrix.prefill_contexts.empty();
  if (!sessions_alone)
    if (auto ok = validate(c.matrix); !ok) return std::unexpected(ok.error());
  if (f.format != "term" && f.format != "json") return fail(ErrorCode::InvalidArgument, "--format must be 'term' or 'json'");
  c.ramp_timeout_s = f.ramp_timeout_s;
  c.request_timeout_s = f.request_timeout_s;
  if (f.drain_timeout_s < 0) return fail(ErrorCode::InvalidArgument, "--drain-timeout must be 0 or more seconds");
  c.drain_timeout_s = f.drain_timeout_s;
  c.telemetry = !f.no_telemetry;
  c.telemetry_interval_s = f.telemetry_interval_s;
  c.nvml_lib = f.nvml_lib;
  c.server_gpus = f.server_gpus;
  c.seed = f.seed;
  c.out_dir = f.out;
  c.dry_run = f.dry_run;
  c.quiet = f.quiet;
  c.save_requests = f.save_requests;
  c.client_selftest = !f.no_selftest;
  c.json_output = f.format == "json";
  c.redact_host = f.redact_host;
  // No target at all: the built-in simulated engine, so `speedmatrix run` works anywhere.
  if (!c.dry_run && c.target.base_url.empty() && f.resume.empty()) c.embedded_sim = true;
  if (f.retrieval_check && f.no_retrieval_check)
    return fail(ErrorCode::InvalidArgument, "--retrieval-check and --no-retrieval-check contradict each other");
  if (f.retrieval_check) c.retrieval_check = true;
  if (f.no_retrieval_check) c.retrieval_check = false;
  if (!f.mixed_prefill.empty()) {
    auto v = parse_token_list(f.mixed_prefill);
    if (!v) return with_flag("--mixed-prefill", v.error());
    if (std::any_of(v->begin(), v->end(), [](int64_t t) { return t < 1; }))
      return fail(ErrorCode::InvalidArgument, "--mixed-prefill: each length must be at least 1 token");
    c.mixed_prefill.contexts = *v;
  }
  if (f.mixed_prefill_streams < 0 || f.mixed_prefill_streams > 4096)
    return fail(ErrorCode::InvalidArgument, "--mixed-prefill-streams must be 1 to 4096");
  if (!(f.mixed_prefill_around_s > 0) || f.mixed_prefill_around_s > 3600)
    return fail(ErrorCode::InvalidArgument, "--mixed-prefill-around must be more than 0 and at most 3600 seconds");
  c.mixed_prefill.streams = f.mixed_prefill_streams;
  c.mixed_prefill.around_s = f.mixed_prefill_around_s;
  if (!f.slo.empty()) {
    auto slo = parse_slo_spec(f.slo);
    if (!slo) return with_flag("--slo", slo.error());
    c.slo = std::move(*slo);
  }
  if (!f.attention_window.empty()) {
    if (!c.target.base_url.empty())
      return fail(ErrorCode::InvalidArgument,
                  "--attention-window is the built-in simulated engine's (no --url, no --launch); a real server's "
                  "model reads what it reads");
    auto v = parse_token_count(f.attention_window);
    if (!v) return with_flag("--attention-window", v.error());
    c.sim_attention_window = *v;
  }
  if (!f.power_limits.limits_w.empty() && !f.resume.empty())
    return fail(ErrorCode::InvalidArgument,
                "--power-limits cannot be resumed as a whole: resume one limit's run with --resume DIR/power-<W>W "
                "after setting its limit");
  if (auto ok = apply_power_limit_flags(f.power_limits, c); !ok) return std::unexpected(ok.error());
  return c;
}

// --resume DIR: the stored settings win; flags given alongside must agree with them (only the
// target URL, key, timeouts and output options may change).
Result<RunConfig> resume_config(const RunFlags& f, const RunConfig& from_flags, const std::vector<std::string>& given) {
  auto stored = read_result_file((std::filesystem::path(f.resume) / "result.json").string());
  if (!stored) return fail(stored.error().code, "--resume: " + stored.error().message);
  if (auto ok = check_resume_settings(*stored, from_flags, given); !ok) return std::unexpected(ok.error());
  RunConfig c = config_to_resume(*stored, f.resume);
  if (auto ok = resume_prompt_source(stored->settings, f.prompts, given, c); !ok) return std::unexpected(ok.error());
  // Prices are not measurements: flags given now replace the stored ones.
  if (auto ok = apply_cost_flags(f.cost, c.cost); !ok) return std::unexpected(ok.error());
  if (c.embedded_sim && (!f.url.empty() || !f.launch.empty()))
    return fail(ErrorCode::InvalidArgument,
                "--resume: the interrupted run measured the built-in simulated engine, which is started again; "
                "drop --url and --launch (a run against another server is a new run)");
  if (!f.url.empty()) c.target.base_url = from_flags.target.base_url;
  if (!f.launch.empty()) c.launch_command = f.launch;
  // What was redacted in the stored run cannot be used again as it is: ask for the original.
  if (f.launch.empty() && is_redacted(c.launch_command))
    return fail(ErrorCode::InvalidArgument,
                "--resume: the stored launch command was redacted; give it again with --launch \"CMD\"");
  if (f.url.empty() && !c.embedded_sim && is_redacted(c.target.base_url))
    return fail(ErrorCode::InvalidArgument, "--resume: the stored target URL was redacted; give it again with --url");
  // A model id that was a local path: ask the server (the runner checks it is the same model).
  if (f.model.empty() && is_redacted(c.target.model)) c.target.model.clear();
  // A run that dropped its hostname keeps doing so when resumed.
  c.redact_host = from_flags.redact_host || stored->hardware.hostname == kRedactedHost;
  c.target.api_key = from_flags.target.api_key;
  c.target.connection = from_flags.target.connection;  // header values were never stored: give them again
  c.target.read_timeout_s = from_flags.target.read_timeout_s;
  c.target.connect_timeout_s = from_flags.target.connect_timeout_s;
  c.target.busy_poll_ns = from_flags.target.busy_poll_ns;
  c.ramp_timeout_s = from_flags.ramp_timeout_s;
  c.request_timeout_s = from_flags.request_timeout_s;
  c.drain_timeout_s = from_flags.drain_timeout_s;
  c.telemetry = from_flags.telemetry;
  c.telemetry_interval_s = from_flags.telemetry_interval_s;
  c.nvml_lib = from_flags.nvml_lib;
  c.server_gpus = from_flags.server_gpus;
  c.launch_timeout_s = from_flags.launch_timeout_s;
  c.quiet = from_flags.quiet;
  c.save_requests = from_flags.save_requests;  // appends to the folder's requests.jsonl
  c.client_selftest = from_flags.client_selftest;
  c.json_output = from_flags.json_output;
  c.retry_failed = from_flags.retry_failed;
  c.sim_attention_window = from_flags.sim_attention_window;  // the built-in engine is started again
  if (from_flags.retrieval_check) c.retrieval_check = from_flags.retrieval_check;  // turned on or off for what is left
  c.sessions = from_flags.sessions;  // a trace given again (its hash is checked), or sessions added
  c.mixed_prefill = from_flags.mixed_prefill;  // adds the rows to a run that had none (a different list is refused)
  c.slo = from_flags.slo;  // adds the search to a run that had none (check_resume_settings refused another)
  if (c.target.base_url.empty() && !c.launch_command.empty()) {
    int port = port_from_command(c.launch_command);
    if (port > 0) c.target.base_url = fmt::format("http://127.0.0.1:{}", port);
  }
  if (c.target.base_url.empty() && !c.embedded_sim)
    return fail(ErrorCode::InvalidArgument, "--resume: the stored run has no target URL; give --url");
  return c;
}

// --dry-run with a URL: the server's limits, read with the probe's GET requests only.
Result<ServerLimits> dry_run_limits(const RunConfig& config, std::vector<std::string>& notes) {
  ServerLimits limits{config.limits_override, std::nullopt};
  if (config.target.base_url.empty()) return limits;
  auto probed = probe_server({config.target.base_url, bearer_headers(config.target.api_key), config.target.model},
                             default_transport(config.target.connection));
  if (!probed) return std::unexpected(probed.error());
  const EngineInfo& e = probed->engine;
  if (!limits.capacity.kv_capacity_tokens) limits.capacity.kv_capacity_tokens = e.kv_capacity_tokens;
  if (!limits.capacity.max_model_len) limits.capacity.max_model_len = e.max_model_len;
  limits.slots = e.slots;
  auto known = [](std::optional<int64_t> v) { return v ? format_thousands(*v) : std::string("unknown"); };
  notes.push_back(fmt::format("server: {} serving {}; model length {} tokens, KV capacity {} tokens, {} at once",
                              to_string(probed->kind), e.model.empty() ? "an unnamed model" : e.model,
                              known(limits.capacity.max_model_len), known(limits.capacity.kv_capacity_tokens),
                              e.slots ? fmt::format("{} requests", *e.slots) : std::string("no limit reported")));
  for (const auto& n : probed->notes) notes.push_back(n);
  return limits;
}

int print_dry_run(const RunConfig& config) {
  std::vector<std::string> notes;
  auto limits = dry_run_limits(config, notes);
  if (!limits) {
    std::fprintf(stderr, "speedmatrix run: --dry-run: cannot ask the server: %s\n", limits.error().message.c_str());
    return kExitFailure;
  }
  const FittedMatrix fitted = fit_matrix(matrix_request(config), *limits);
  if (!config.profile_note.empty()) notes.push_back(config.profile_note);
  for (const auto& n : fitted.notes) notes.push_back(n);
  Plan plan = make_plan(fitted.matrix, limits->capacity);
  MatrixSettings matrix = config.matrix;
  matrix.max_output_tokens = fitted.matrix.max_output_tokens;
  const int64_t passes = config.repeat;
  TimeEstimate estimate = estimated_time(plan, matrix);
  estimate.low_s *= static_cast<double>(passes);
  estimate.high_s *= static_cast<double>(passes);
  if (config.json_output) {
    auto j = plan_to_json(plan);
    j["profile"] = config.profile.empty() ? nlohmann::json(nullptr) : nlohmann::json(config.profile);
    j["max_output_tokens"] = fitted.matrix.max_output_tokens;
    j["repeat"] = passes;
    j["notes"] = notes;
    j["estimated_seconds"] = estimate.high_s;
    j["estimated_seconds_min"] = estimate.low_s;
    j["estimate_excludes_decode_windows"] = estimate.decode_windows_unknown;
    std::puts(j.dump(2).c_str());
  } else {
    std::printf("Profile: %s; max output %s tokens%s\n",
                config.profile.empty() ? "none (a matrix of its own)" : config.profile.c_str(),
                format_thousands(fitted.matrix.max_output_tokens).c_str(),
                passes > 1 ? fmt::format("; {} passes (--repeat)", passes).c_str() : "");
    for (const auto& n : notes) std::printf("Note: %s\n", n.c_str());
    std::fputs(plan_to_text(plan).c_str(), stdout);
    int64_t cells = 0, rows = 0;
    for (const auto& c : plan.decode) cells += c.status == CellStatus::Valid;
    for (const auto& r : plan.prefill) rows += r.status == CellStatus::Valid;
    const MatrixSettings& m = matrix;
    std::string window;
    if (estimate.decode_windows_unknown)
      window = fmt::format("{} requests each at the server's speed, not counted", m.requests_per_cell);
    else if (m.precision > 0 && !m.precision_audit)
      window = fmt::format("{:g}-{:g} s adaptive window", std::min(m.min_window_s, m.duration_s), m.duration_s);
    else
      window = fmt::format("{:g} s window", m.duration_s);
    const std::string total = estimate.low_s < estimate.high_s
                                  ? ProgressLine::format_eta(estimate.low_s) + " to " + ProgressLine::format_eta(estimate.high_s)
                                  : ProgressLine::format_eta(estimate.high_s);
    std::printf("Estimated time: %s%s (%s%lld decode cells x (%s + ~%g s warm-up and idle wait) + %lld prefill rows x "
                "~%g s%s; the server's speed changes it)\n",
                estimate.decode_windows_unknown ? "at least " : "", total.c_str(), passes > 1 ? "(" : "",
                static_cast<long long>(cells), window.c_str(), kDecodeCellOverheadEstimateS,
                static_cast<long long>(rows), kPrefillRowEstimateS,
                passes > 1 ? fmt::format(") x {} passes", passes).c_str() : "");
    if (config.sessions) {  // the sessions workload, after the matrix (not in the estimate)
      RunSettings settings;
      apply_sessions_settings(settings, *config.sessions, config.seed);
      const SessionsSettings& s = *settings.sessions;
      if (s.source == "trace")
        std::printf("Then the trace %s: %lld sessions, %lld turns, replayed at %gx its recorded speed.\n",
                    s.trace_file.c_str(), static_cast<long long>(s.sessions), static_cast<long long>(s.trace_requests),
                    s.trace_speed);
      else
        std::printf("Then %lld sessions of %lld turns (opening %s tokens, each turn %s, answers %s), as fast as the "
                    "server answers.\n",
                    static_cast<long long>(s.sessions), static_cast<long long>(s.turns), s.first_tokens.c_str(),
                    s.user_tokens.c_str(), s.answer_tokens.c_str());
    }
  }
  return kExitOk;
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* run = app.add_subcommand("run", "Run the speed-test matrix against a server and write a run folder");
  run->footer(
      "Sizes accept K (1024) and M suffixes: 16K = 16384 tokens.\n"
      "Without --url or --launch, run measures speedmatrix's built-in simulated engine (an RTX 3090 with\n"
      "Qwen3.5-4B AWQ under vLLM, predicted by the decode calculator) and labels everything simulated.\n"
      "Examples:\n"
      "  speedmatrix run --quick\n"
      "  speedmatrix run --url http://127.0.0.1:8000 --profile standard   (comparable with every standard/1 run)\n"
      "  speedmatrix run --url http://127.0.0.1:8000\n"
      "  speedmatrix run --url http://host:8080 --contexts 0,4K --concurrency 1,2,4 --duration 10\n"
      "  speedmatrix run --url http://gpu-box:8000 --server-hardware gpu-box.json  (from `speedmatrix hardware --out`)\n"
      "  speedmatrix run --url https://lab-box:8443 --cacert lab-ca.pem --header 'api-key: KEY' --http2\n"
      "  speedmatrix run --dry-run --kv-capacity 530000 --max-model-len 262144 --format json\n"
      "  speedmatrix run --dry-run --url http://127.0.0.1:8080   (asks the server, GET requests only)\n"
      "Exit status: 0 every planned row and cell is valid, over capacity or beyond the model; 3 some ended in\n"
      "error (the server died, a stream failed: --resume DIR --retry-failed measures them again); 4 nothing was\n"
      "measured at all; 1 the run could not start or save its result; 2 a bad flag; 130 interrupted.");
  run->add_option("--url", flags->url, "Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000");
  run->add_option("--launch", flags->launch,
                  "Start this server command, wait until it is healthy, measure it, stop it; the exact "
                  "command and its log go into the run folder. Its --port N gives the URL unless --url is set");
  run->add_option("--launch-timeout", flags->launch_timeout_s,
                  "Seconds a launched server may take to become healthy")
      ->capture_default_str();
  run->add_option("--server-hardware", flags->hardware.server_hardware_path,
                  "For a server on another machine: its hardware, from a file written there by "
                  "`speedmatrix hardware --out FILE`. Without it (or --gpu), a remote server's hardware is "
                  "recorded as unknown and this machine as the client; a server on this machine is probed");
  run->add_option("--gpu", flags->hardware.gpu,
                  "For a server on another machine: its GPU model, e.g. \"RTX 3090\" (names the decode "
                  "calculator knows get their full name and memory; others are kept as given)");
  run->add_option("--gpu-count", flags->hardware.gpu_count, "With --gpu: how many of that GPU the server uses (default 1)");
  run->add_option("--api", flags->api,
                  "Route the streams use: 'completions' (/v1/completions) or 'chat' (/v1/chat/completions)")
      ->capture_default_str();
  run->add_option("--api-key", flags->api_key,
                  "Bearer token; default: $SPEEDMATRIX_API_KEY, else $OPENAI_API_KEY");
  add_connection_flags(run, flags->connection, true, "the server");
  run->add_option("--model", flags->model, "Model id to request; default: the first model the server lists");
  run->add_option("--contexts", flags->contexts,
                  "Decode rows: prompt tokens shared by the streams of a cell, comma list, or 'none' (prefill rows "
                  "only) (default 0,16K,32K,64K,128K up to max model length - max output, which ends the list)");
  run->add_option("--concurrency", flags->concurrency,
                  "Decode columns: simultaneous requests, comma list (default 1,2,4,8,16,32,64,128)");
  run->add_option("--prefill-contexts", flags->prefill_contexts,
                  "Prefill rows: prompt tokens of one cold request, comma list, or 'none' "
                  "(default 8K,16K,32K,64K,128K)");
  run->add_option("--duration", flags->duration_s, "Seconds each decode cell is measured for")->capture_default_str();
  run->add_option("--user-floor", flags->user_floors,
                  "Per-user speeds (tok/s) the capacity table reads: how many simultaneous users each context serves "
                  "at each, comma list (default 10,20,50)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  add_cost_flags(run, flags->cost);
  add_power_limit_flags(run, flags->power_limits);
  run->add_option("--max-output", flags->max_output, "Tokens each decode request asks for (end of sequence ignored)")
      ->capture_default_str();
  run->add_option("--precision", flags->precision,
                  "Adaptive windows: end a decode cell as soon as its total tok/s is within this of what the "
                  "full --duration window would measure (e.g. 2%) and that estimate has stopped moving; "
                  "--duration becomes the cap (a server whose speed wanders runs to it)");
  run->add_option("--min-window", flags->min_window_s, "Adaptive windows: the shortest window, seconds")
      ->capture_default_str();
  run->add_flag("--precision-audit", flags->precision_audit,
                "With --precision: run every window to --duration anyway, and record in each cell where the "
                "adaptive window would have closed and what it would have reported (audit_close_s, audit_tok_s), "
                "to check the projection against the full window in the same run");
  run->add_option("--requests", flags->requests,
                  "Burst cells instead of timed windows: each decode cell sends this many requests through "
                  "its simultaneous slots and reports tokens / wall time with E2E, TTFT and TPOT percentiles");
  run->add_option("--warmup-requests", flags->warmup_requests,
                  "Burst cells: requests sent before the measured ones, not counted (default: one per "
                  "simultaneous request, at most 8)");
  run->add_option("--kv-capacity", flags->kv_capacity,
                  "KV-cache capacity in tokens; overrides what the server reports. Cells with "
                  "concurrency x (context + max output) above it are marked over capacity");
  run->add_option("--max-model-len", flags->max_model_len,
                  "Longest prompt + output per request; overrides the server. Longer cells are marked beyond the model");
  run->add_option("--out", flags->out, "Run folder (default runs/<timestamp>-<model>)");
  run->add_option("--format", flags->format, "What is printed at the end: 'term' tables or 'json'")
      ->capture_default_str();
  run->add_option("--timeout", flags->timeout_s, "Seconds a stream may stay silent before it fails")
      ->capture_default_str();
  run->add_option("--connect-timeout", flags->connect_timeout_s, "Seconds to connect")->capture_default_str();
  add_busy_poll_option(run, flags->busy_poll_us);
  run->add_option("--ramp-timeout", flags->ramp_timeout_s,
                  "Longest wait, in seconds, for every stream of a decode cell to produce a first token; "
                  "then the window opens anyway and the cell reports its effective concurrency")
      ->capture_default_str();
  run->add_option("--request-timeout", flags->request_timeout_s,
                  fmt::format("Longest, in seconds, a request outside a decode window (calibration, warm-up, prefill) "
                              "may take before it is cut and its row or cell marked error (default: {:.0f} s + {:.0f} ms "
                              "per prompt token). Streams that send clearly more than max_tokens are cut too",
                              kRequestTimeoutFloorS, kRequestTimeoutPerPromptTokenS * 1e3))
      ->check(CLI::NonNegativeNumber);
  run->add_option("--drain-timeout", flags->drain_timeout_s,
                  "Longest wait, in seconds, before each prefill row and decode cell for the server to report "
                  "no running and no queued requests (the previous cell's cancelled streams may still run); "
                  "still busy then: that row or cell is an error and the run goes on. 0 turns the check off. "
                  "Servers without load metrics get a 1 s pause after cancelled streams instead")
      ->capture_default_str();
  run->add_flag("--no-telemetry", flags->no_telemetry,
                "Do not sample the GPUs (NVML), the host's CPU or the server's metrics during the run (cells then "
                "have no power, clock, throttle or tokens-per-joule figures)");
  run->add_option("--telemetry-interval", flags->telemetry_interval_s,
                  "Seconds between GPU and host samples (the server's metrics are read every second); the raw "
                  "series goes to telemetry.jsonl in the run folder")
      ->capture_default_str()
      ->check(CLI::Range(0.05, 60.0));
  run->add_option("--nvml-lib", flags->nvml_lib,
                  "NVML library to read the GPUs with (default libnvidia-ml.so.1, loaded at run time; without it "
                  "AMD GPUs are read from amdgpu's sysfs files, else the run has no GPU telemetry and says why)");
  run->add_option("--server-gpus", flags->server_gpus,
                  "The GPUs the server runs on, by NVML index as nvidia-smi numbers them (\"0,3\"; AMD GPUs: by "
                  "DRM card order) or UUID (\"GPU-5c2f...\"): only they count in the hardware, power, energy, "
                  "tokens per joule and throttle verdicts. Default: found from the driver's process list, else "
                  "the server's CUDA_VISIBLE_DEVICES, else every GPU (docs/METRICS.md, \"The server's GPUs\")");
  run->add_option("--temperature", flags->temperature, "Sampling temperature sent with every request")
      ->capture_default_str();
  run->add_option("--seed", flags->seed, "Seed of the prompt text (0: derived from the run id)");
  add_prompt_flags(run, flags->prompts);
  add_session_flags(run, flags->sessions);
  run->add_flag("--dry-run", flags->dry_run,
                "Print the plan (cells and their status) and measure nothing; with --url it asks the server for its "
                "limits first (GET requests only) and plans against them, else it contacts nothing");
  run->add_option("--resume", flags->resume,
                  "Continue the interrupted run in this folder (stopped by Ctrl-C, a kill, a crash or a reboot): "
                  "measures only its pending and interrupted cells, with its stored settings (flags that change them "
                  "are refused). The built-in engine or the --launch server is started again; a --url server must "
                  "still answer (or give --url where it runs now)");
  run->add_flag("--quiet", flags->quiet, "No live progress line");
  run->add_flag("--save-requests", flags->save_requests,
                "Write every request's record to requests.jsonl in the run folder, one JSON line each: what it "
                "was for (prefill, decode, warm-up, ...), its context and concurrency, send time, time to first "
                "and last token, token counts, status and finish reason (docs/METRICS.md, \"Per-request "
                "records\"); a resumed run appends");
  run->add_option("--profile", flags->profile,
                  fmt::format("A fixed profile, so runs on any two machines compare cell for cell: 'standard' ({}: {}; "
                              "the one the results site ranks) or 'quick' ({}: {}; never ranked). Cells beyond the "
                              "model are marked so and the run keeps its profile; a flag that changes one of its "
                              "settings drops it (the run says so)",
                              find_profile("standard")->id, find_profile("standard")->summary, find_profile("quick")->id,
                              find_profile("quick")->summary));
  run->add_flag("--quick", flags->quick, "The quick profile (--profile quick): a first look in about a minute");
  run->add_option("--repeat", flags->repeat,
                  "Measure the whole matrix N times, pass after pass (each row and cell once per pass), and record "
                  "every pass's figure, so compare can tell run-to-run noise from a real difference")
      ->capture_default_str();
  run->add_flag("--retry-failed", flags->retry_failed,
                "With --resume: measure the rows and cells that ended in error again (the server may be back)");
  run->add_flag("--retrieval-check", flags->retrieval_check,
                "After the matrix, ask the server back a passkey hidden a quarter of the way into a prompt of each "
                "measured context (one unmeasured request per context, temperature 0): a context it cannot read "
                "back warns on its cells (docs/METRICS.md, \"Long-context retrieval check\"). On by default with "
                "--profile standard");
  run->add_flag("--no-retrieval-check", flags->no_retrieval_check, "Do not run the retrieval check");
  run->add_option("--slo", flags->slo,
                  "After the matrix, find per context the most requests at once that meet these latency targets "
                  "(SLO): ttft=TIME and/or tpot=TIME (ms or s: \"ttft=2s,tpot=50ms\"); context=TOKENS (repeatable; "
                  "default every decode context); p=PERCENTILE, the share of requests that must meet every target "
                  "(default 90); probes=N, extra measurements per context (default 6). The matrix's cells bracket "
                  "the answer, probes bisect the concurrencies between (each like a decode cell, after the idle "
                  "barrier); the report gives the concurrency, its TTFT and TPOT at the percentile and its goodput "
                  "(docs/METRICS.md, \"SLO search\")");
  run->add_option("--mixed-prefill", flags->mixed_prefill,
                  "After the matrix, for each of these prompt lengths (e.g. 8K,32K): the prompt alone on the idle "
                  "server, then a prompt as long landing while --mixed-prefill-streams requests decode; the report "
                  "gives TTFT alone and under load, the streams' total tok/s before, during and after its prefill, "
                  "their longest pause, and a timeline (docs/METRICS.md, \"Mixed prefill\")");
  run->add_option("--mixed-prefill-streams", flags->mixed_prefill_streams,
                  "Mixed prefill: requests decoding while the long prompt lands (default 4, or one less than the "
                  "server's slots where it has fewer)");
  run->add_option("--mixed-prefill-around", flags->mixed_prefill_around_s,
                  "Mixed prefill: seconds the streams decode before the long prompt is sent, and again after its "
                  "first token")
      ->capture_default_str();
  run->add_option("--attention-window", flags->attention_window,
                  "The built-in simulated engine's model reads only a prompt's last TOKENS tokens (its speed is "
                  "unchanged): the retrieval check fails at contexts whose needle lies before them");
  run->add_flag("--no-selftest", flags->no_selftest,
                "Skip the ~1 s measurement of this client's own ceiling before the run (cells near it are flagged)");
  run->add_option("--upload", flags->upload_url,
                  "When the run finishes, send result.json to this results site, e.g. http://host:8080 "
                  "(retried; if it fails the run stays marked for `speedmatrix upload --pending`)");
  run->add_option("--upload-token", flags->upload_token, "Token for --upload; default $SPEEDMATRIX_UPLOAD_TOKEN");
  run->add_flag("--redact-host", flags->redact_host,
                "Also drop this machine's and the server's hostnames and local paths from everything written, "
                "printed or uploaded: the host becomes <redacted-host> (the port stays) and a path like "
                "/home/alice/models/qwen.gguf becomes <dir>/qwen.gguf. Secrets (API keys, tokens, passwords, "
                "Authorization headers, URL credentials and key-like query parameters) are always redacted");
  run->callback([flags, run, &action]() {
    std::vector<std::string> given;
    for (const CLI::Option* o : run->get_options())
      if (o->count() > 0) given.push_back(o->get_name());
    flags->given = given;
    flags->duration_given = run->get_option("--duration")->count() > 0;
    flags->max_output_given = run->get_option("--max-output")->count() > 0;
    action = [flags, given]() -> int {
      auto config = to_config(*flags);
      if (config && !flags->resume.empty()) config = resume_config(*flags, *config, given);
      if (config)
        if (auto ok = declare_server_hardware(*config, flags->hardware, !flags->resume.empty()); !ok)
          config = std::unexpected(ok.error());
      if (!config) {
        std::fprintf(stderr, "speedmatrix run: %s\n", config.error().message.c_str());
        return kExitUsage;
      }
      if (!flags->resume.empty()) {
        // A finished run is said to be finished, without asking its server anything.
        auto stored = read_result_file((std::filesystem::path(flags->resume) / "result.json").string());
        // --slo added to a run that had none: its searches are owed.
        if (stored && config->slo && !stored->settings.slo) apply_slo_spec(stored->settings, *config->slo);
        // --mixed-prefill added to a run that had none: its rows are owed.
        if (stored && !config->mixed_prefill.contexts.empty() && stored->settings.mixed_prefill_contexts.empty())
          apply_mixed_prefill_settings(stored->settings, config->mixed_prefill, stored->engine.slots);
        const ResumeWork work = stored ? resume_work(*stored, config->retry_failed, config->retrieval_check) : ResumeWork{};
        if (stored && work.nothing_to_do()) {
          std::fprintf(stderr, "speedmatrix run: %s\n", finished_run_message(flags->resume, work).c_str());
          return exit_code_for(*stored);
        }
      }
      if (config->dry_run) return print_dry_run(*config);
      const std::string upload_token = upload::upload_token_from(flags->upload_token);
      if (!flags->upload_url.empty() && upload_token.empty()) {
        std::fprintf(stderr, "speedmatrix run: --upload needs a token: --upload-token T or $SPEEDMATRIX_UPLOAD_TOKEN\n");
        return kExitUsage;
      }
      if (flags->resume.empty()) {
        config->target_locality = locate_target(*config, config->target.base_url, system_host_lookup());
        if (auto note = attribution_note(*config->target_locality, config->server_hardware); !note.empty())
          std::fprintf(stderr, "speedmatrix run: %s\n",
                       redact_attribution(note, attribution_redaction(*config)).c_str());
      }
      if (!config->power_limits_w.empty()) {
        std::vector<PowerLimitRunFolder> runs;
        const int code = run_power_limit_sweep(*config, system_power_limit_hooks(*config), &runs);
        if (flags->upload_url.empty()) return code;
        bool upload_failed = false;  // each limit's finished run goes up on its own
        for (const PowerLimitRunFolder& run : runs)
          if (upload::upload_after_run(run.folder, flags->upload_url, upload_token, run.exit_code, config->redact_host) !=
              run.exit_code)
            upload_failed = true;
        return code == kExitOk && upload_failed ? kExitFailure : code;
      }
      std::string run_folder;
      const int code = run_matrix(*config, &run_folder);
      if (flags->upload_url.empty()) return code;
      return upload::upload_after_run(run_folder, flags->upload_url, upload_token, code, config->redact_host);
    };
  });
}

}  // namespace sm::cli
