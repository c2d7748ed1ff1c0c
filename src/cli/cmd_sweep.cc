// speedmatrix sweep: open-loop request-rate sweeps with goodput (bench/sweep_run.h).
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

#include "bench/sweep_run.h"
#include "cli/commands.h"
#include "cli/connection_flags.h"
#include "cli/prompt_flags.h"
#include "net/url.h"

namespace sm::cli {

namespace {

struct SweepFlags {
  std::string url;
  std::string api = "completions";
  std::string api_key;
  ConnectionFlags connection;
  std::string model;
  std::string rates = "auto";
  std::string arrivals = "poisson";
  std::string input_len = "1024";
  std::string output_len = "128";
  double duration_s = 30;
  int64_t requests = 0;
  double slo_ttft_ms = 0;
  double slo_tpot_ms = 0;
  double auto_start = 1;
  double auto_max = 4096;
  int auto_points = 5;
  double drain_timeout_s = 120;
  double timeout_s = 600;
  double connect_timeout_s = 10;
  double busy_poll_us = 0;
  double temperature = 0;
  uint64_t seed = 0;
  PromptFlags prompts;  ///< --prompts, --dataset, --natural-eos
  std::string out;
  std::string format = "term";
  bool quiet = false;
  bool redact_host = false;
};

Result<SweepConfig> to_config(const SweepFlags& f) {
  SweepConfig c;
  auto flag_error = [](const char* flag, const Error& e) { return fail(e.code, fmt::format("{}: {}", flag, e.message)); };
  if (!f.url.empty())
    if (auto ok = check_http_url("--url", f.url); !ok) return std::unexpected(ok.error());
  c.target.base_url = trim_base_url(f.url);
  c.embedded_sim = c.target.base_url.empty();
  if (auto ok = apply_target_flags({f.api, f.api_key, f.model, f.timeout_s, f.connect_timeout_s, f.busy_poll_us,
                                     &f.connection},
                                    c.target);
      !ok)
    return std::unexpected(ok.error());

  auto rates = parse_rates(f.rates);
  if (!rates) return flag_error("--rates", rates.error());
  c.plan.rates = *rates;
  c.rates_text = f.rates;
  c.plan.auto_start_rps = f.auto_start;
  c.plan.auto_max_rps = f.auto_max;
  c.plan.auto_points = f.auto_points;
  if (c.plan.auto_max_rps < c.plan.auto_start_rps)
    return fail(ErrorCode::InvalidArgument, "--auto-max must be at least --auto-start");
  auto arrivals = parse_arrival_process(f.arrivals);
  if (!arrivals) return flag_error("--arrivals", arrivals.error());
  c.arrivals = *arrivals;
  auto input = parse_length_distribution(f.input_len);
  if (!input) return flag_error("--input-len", input.error());
  c.input_len = *input;
  auto output = parse_length_distribution(f.output_len);
  if (!output) return flag_error("--output-len", output.error());
  c.output_len = *output;
  c.duration_s = f.duration_s;
  if (f.requests > 0) c.requests_per_rate = f.requests;
  if (f.slo_ttft_ms > 0) c.slo.ttft_ms = f.slo_ttft_ms;
  if (f.slo_tpot_ms > 0) c.slo.tpot_ms = f.slo_tpot_ms;
  c.drain_timeout_s = f.drain_timeout_s;
  c.temperature = f.temperature;
  c.seed = f.seed;
  if (auto ok = apply_prompt_flags(f.prompts, c.prompts, c.target); !ok) return std::unexpected(ok.error());
  c.out_dir = f.out;
  if (f.format != "term" && f.format != "json") return fail(ErrorCode::InvalidArgument, "--format must be 'term' or 'json'");
  c.json_output = f.format == "json";
  c.quiet = f.quiet;
  c.redact_host = f.redact_host;
  return c;
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<SweepFlags>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Open-loop request-rate sweep: latency percentiles, throughput and goodput at each rate");
  cmd->footer(
      "Requests arrive on a schedule (Poisson by default) whatever the server is doing, and every latency is\n"
      "timed from the request's intended start, so queueing in the client or the server counts.\n"
      "Without --url, sweep measures speedmatrix's built-in simulated engine and labels everything simulated.\n"
      "Examples:\n"
      "  speedmatrix sweep --rates 2,4 --duration 5\n"
      "  speedmatrix sweep --url http://127.0.0.1:8000 --rates auto --slo-ttft 500 --slo-tpot 50\n"
      "  speedmatrix sweep --url http://host:8000 --rates 1,2,4,8 --input-len 1024:256 --output-len 256:64 --requests 200");
  cmd->add_option("--url", flags->url, "Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000");
  cmd->add_option("--api", flags->api, "Route: 'completions' or 'chat'")->capture_default_str();
  cmd->add_option("--api-key", flags->api_key, "Bearer token; default: $SPEEDMATRIX_API_KEY, else $OPENAI_API_KEY");
  add_connection_flags(cmd, flags->connection, true, "the server");
  cmd->add_option("--model", flags->model, "Model id to request; default: the first model the server lists");
  cmd->add_option("--rates", flags->rates,
                  "Requests per second, comma list (e.g. 1,2,4,8), or 'auto': double from --auto-start until the "
                  "server saturates, then measure --auto-points rates below the saturation rate")
      ->capture_default_str();
  cmd->add_option("--arrivals", flags->arrivals, "Arrival process: 'poisson' or 'constant' (evenly spaced)")
      ->capture_default_str();
  cmd->add_option("--input-len", flags->input_len,
                  "Prompt tokens per request: N, or MEAN:SD for a normal draw clipped to at least 1 (e.g. 1024:256)")
      ->capture_default_str();
  cmd->add_option("--output-len", flags->output_len, "Output tokens asked per request: N or MEAN:SD")
      ->capture_default_str();
  cmd->add_option("--duration", flags->duration_s, "Seconds of arrivals per rate")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--requests", flags->requests, "Requests per rate instead of --duration (window = N ÷ rate)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--slo-ttft", flags->slo_ttft_ms, "TTFT target in ms (from the intended start) for goodput")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--slo-tpot", flags->slo_tpot_ms, "Time-per-output-token target in ms for goodput")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--auto-start", flags->auto_start, "--rates auto: first rate of the search")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--auto-max", flags->auto_max, "--rates auto: highest rate the search tries")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--auto-points", flags->auto_points, "--rates auto: rates measured below the saturation rate")
      ->capture_default_str()
      ->check(CLI::Range(1, 50));
  cmd->add_option("--drain-timeout", flags->drain_timeout_s,
                  "Seconds after a rate's last arrival to wait for its answers; those still running then fail")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timeout", flags->timeout_s, "Seconds a stream may stay silent before it fails")->capture_default_str();
  cmd->add_option("--connect-timeout", flags->connect_timeout_s, "Seconds to connect")->capture_default_str();
  add_busy_poll_option(cmd, flags->busy_poll_us);
  cmd->add_option("--temperature", flags->temperature, "Sampling temperature sent with every request")
      ->capture_default_str();
  cmd->add_option("--seed", flags->seed, "Seed of arrivals, lengths and prompt text (0: derived from the run id)");
  add_prompt_flags(cmd, flags->prompts);
  cmd->add_option("--out", flags->out, "Run folder (default runs/<timestamp>-<model>)");
  cmd->add_option("--format", flags->format, "What is printed at the end: 'term' table or 'json'")->capture_default_str();
  cmd->add_flag("--quiet", flags->quiet, "No line per rate on stderr");
  cmd->add_flag("--redact-host", flags->redact_host, "Drop hostnames and local paths from everything written (as run)");
  cmd->callback([flags, &action]() {
    action = [flags]() -> int {
      auto config = to_config(*flags);
      if (!config) {
        std::fprintf(stderr, "speedmatrix sweep: %s\n", config.error().message.c_str());
        return kExitUsage;
      }
      return run_sweep_command(*config);
    };
  });
}

}  // namespace sm::cli
