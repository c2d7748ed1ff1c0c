#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "core/clock.h"
#include "core/units.h"
#include "telemetry/telemetry_recorder.h"
#include "telemetry/telemetry_sources_open.h"
#include "selftest/selftest.h"
#include "net/connection_options.h"
#include "selftest/streamer.h"

namespace sm::cli {

namespace {

struct SelftestFlags {
  std::string streams = "1,64,1024,4096";
  double seconds = 3;
  std::string format = "term";
  bool no_python = false;
  bool no_lag = false;
  bool no_output_checks = false;
  double paced_rate = 25;
  double busy_poll_us = 0;  ///< set with its default by add_busy_poll_option
  double streamer_tick_us = 0;
  bool telemetry = false;
  bool http2 = false;
  bool tls = false;
  double telemetry_interval_s = 0.5;
  std::string nvml_lib;
};

// The run's telemetry sampler beside the self-test, as during a run: its cost on the measuring
// thread shows as the difference with and without it (docs/performance.md).
std::unique_ptr<TelemetryRecorder> start_selftest_telemetry(const SelftestFlags& f) {
  TelemetrySources sources;
  if (auto gpu = open_gpu_source(f.nvml_lib)) {
    sources.gpu = std::move(*gpu);
  } else {
    std::fprintf(stderr, "speedmatrix selftest: no GPU telemetry: %s\n", gpu.error().message.c_str());
  }
  sources.host = open_host_source("/");
  RecorderOptions ro;
  ro.interval_ns = static_cast<int64_t>(f.telemetry_interval_s * 1e9);
  auto recorder = std::make_unique<TelemetryRecorder>(std::move(sources), SteadyClock::instance(), ro);
  recorder->start(wall_clock_unix_ms());
  std::fprintf(stderr, "speedmatrix selftest: telemetry sampler on (every %.2f s: %s%s)\n", f.telemetry_interval_s,
               recorder->has_gpu() ? "GPUs " : "", recorder->has_host() ? "host" : "");
  return recorder;
}

void print_term(const std::vector<SelftestPoint>& points, double paced_rate, bool http2, bool tls) {
  std::printf("speedmatrix client ceiling (one core; fast local streamer in a child process; %s%s)\n\n",
              http2 ? "HTTP/2, the streams multiplexed on one connection" : "HTTP/1.1, one connection per stream",
              tls ? ", over TLS" : "");
  std::printf("%8s %14s %12s %12s %10s %16s %8s\n", "streams", "tokens/s", "lag p50 µs", "lag p99 µs", "RSS MiB",
              "python tokens/s", "ratio");
  for (const auto& p : points) {
    std::string py = p.python_tokens_per_s ? format_thousands(static_cast<int64_t>(*p.python_tokens_per_s)) : "—";
    std::string ratio = p.python_tokens_per_s ? fmt::format("{:.1f}x", p.tokens_per_s / *p.python_tokens_per_s) : "—";
    std::printf("%8ld %14s %12.0f %12.0f %10.1f %16s %8s\n", static_cast<long>(p.streams),
                format_thousands(static_cast<int64_t>(p.tokens_per_s)).c_str(), p.lag_p50_us, p.lag_p99_us, p.rss_mib,
                py.c_str(), ratio.c_str());
  }
  std::printf("\ntokens/s: what the client ingests from an unpaced streamer (many chunks per read). Lag: the\n"
              "streamer paced at %.0f tok/s per stream, one token per chunk (--paced-rate), send -> client stamp.\n"
              "RSS: the client's peak. python: an asyncio + aiohttp client (the way vLLM's and SGLang's\n"
              "benchmark clients read streams) on the same unpaced streamer.\n",
              paced_rate);
}

}  // namespace

void add_selftest_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<SelftestFlags>();
  CLI::App* cmd = app.add_subcommand("selftest", "Measure this machine's client ceiling: tokens/s ingested, lag, memory");
  cmd->footer("Example: speedmatrix selftest --format json\n"
              "The numbers a run must stay well below to be the server's, not the client's (docs/performance.md).");
  cmd->add_option("--streams", flags->streams, "Concurrent streams to measure at, comma list")->capture_default_str();
  cmd->add_option("--seconds", flags->seconds, "Seconds measured per phase")->capture_default_str();
  cmd->add_option("--format", flags->format, "'term' or 'json'")->capture_default_str()->check(CLI::IsMember({"term", "json"}));
  cmd->add_flag("--no-python", flags->no_python, "Skip the Python asyncio + aiohttp comparison");
  cmd->add_flag("--no-lag", flags->no_lag, "Skip the paced lag phase");
  cmd->add_flag("--no-output-checks", flags->no_output_checks,
                "Leave out the output checks a run does on every chunk's text (loops, text that is not text), "
                "to measure what they cost");
  cmd->add_flag("--tls", flags->tls,
                "The streamer serves https (a throwaway certificate) and the client decrypts, as against a remote "
                "https server; no Python comparison");
  cmd->add_flag("--http2", flags->http2,
                "Measure the client's HTTP/2 path (what run --http2 uses): the streamer speaks HTTP/2 and every "
                "point's streams are multiplexed on one connection; compare with the default, HTTP/1.1 with one "
                "connection per stream. No Python comparison (aiohttp's client speaks HTTP/1.1 only). With libcurl "
                "before 8.0.0 it needs --tls (HTTP/2 over plain http cannot reuse a connection there)");
  cmd->add_option("--paced-rate", flags->paced_rate,
                  "Lag phase: tokens/s per stream, one token per chunk (at most a quarter of the ceiling in all)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  add_busy_poll_option(cmd, flags->busy_poll_us);
  cmd->add_option("--streamer-tick-us", flags->streamer_tick_us,
                  "Lag phase: the streamer sleeps and wakes this often to send the chunks that fell due "
                  "together, in bursts like a server's decode steps (0: each chunk when due)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--telemetry", flags->telemetry,
                "Run the telemetry sampler (GPUs through NVML, host CPU) beside the client, as a run does: "
                "compare with and without to see its cost");
  cmd->add_option("--telemetry-interval", flags->telemetry_interval_s, "With --telemetry: seconds between samples")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 60.0));
  cmd->add_option("--nvml-lib", flags->nvml_lib, "With --telemetry: the NVML library (default libnvidia-ml.so.1)");
  cmd->callback([flags, &action]() {
    action = [flags]() -> int {
      auto streams = parse_int_list(flags->streams);
      if (!streams) {
        std::fprintf(stderr, "speedmatrix selftest: --streams: %s\n", streams.error().message.c_str());
        return kExitUsage;
      }
      SelftestOptions opts;
      opts.streams = *streams;
      opts.seconds = flags->seconds;
      opts.python = !flags->no_python;
      opts.lag = !flags->no_lag;
      opts.output_checks = !flags->no_output_checks;
      opts.paced_tok_s_per_stream = flags->paced_rate;
      opts.busy_poll_ns = static_cast<int64_t>(flags->busy_poll_us * 1e3);
      opts.streamer_tick_ns = static_cast<int64_t>(flags->streamer_tick_us * 1e3);
      opts.http2 = flags->http2;
      opts.tls = flags->tls;
      if (opts.tls) opts.python = false;  // the comparison client is plain http
      if (opts.http2 && !opts.tls && !libcurl_reuses_cleartext_http2()) {
        // The streamer speaks plain http: the client's HTTP/2 path cannot be measured with this libcurl.
        std::fprintf(stderr,
                     "speedmatrix selftest: --http2 needs libcurl 8.0.0 or later: this one (%s) cannot reuse an "
                     "HTTP/2 connection over plain http (curl issue #10634); add --tls to measure HTTP/2 over https "
                     "(as run --http2 reaches a remote server)\n",
                     libcurl_version().c_str());
        return kExitFailure;
      }
      if (opts.http2) opts.python = false;  // aiohttp's client speaks HTTP/1.1 only
      std::unique_ptr<TelemetryRecorder> telemetry;
      if (flags->telemetry) telemetry = start_selftest_telemetry(*flags);
      auto points = run_selftest(opts);
      if (telemetry) {
        telemetry->stop();
        const auto series = telemetry->series();
        std::fprintf(stderr, "speedmatrix selftest: telemetry took %zu GPU and %zu host samples meanwhile\n",
                     series.gpu.size(), series.host.size());
      }
      if (!points) {
        std::fprintf(stderr, "speedmatrix selftest: %s\n", points.error().message.c_str());
        return kExitFailure;
      }
      if (flags->format == "json") {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& p : *points)
          out.push_back({{"streams", p.streams},
                         {"tokens_per_s", p.tokens_per_s},
                         {"lag_p50_us", p.lag_p50_us},
                         {"lag_p99_us", p.lag_p99_us},
                         {"paced_tokens_per_s", p.paced_tokens_per_s},
                         {"rss_mib", p.rss_mib},
                         {"http_version", flags->http2 ? "2" : "1.1"},
                         {"tls", flags->tls},
                         {"python_tokens_per_s", p.python_tokens_per_s ? nlohmann::json(*p.python_tokens_per_s) : nlohmann::json()},
                         {"python_ratio", p.python_tokens_per_s ? nlohmann::json(p.tokens_per_s / *p.python_tokens_per_s)
                                                                : nlohmann::json()}});
        std::puts(out.dump(2).c_str());
      } else {
        print_term(*points, flags->paced_rate, flags->http2, flags->tls);
      }
      return kExitOk;
    };
  });

  // The streamer the self-test starts in a child process (not for people; hidden from --help).
  auto streamer = std::make_shared<StreamerConfig>();
  auto port_fd = std::make_shared<int>(-1);
  CLI::App* hidden = app.add_subcommand("selftest-streamer", "");
  hidden->group("");
  hidden->add_option("--seconds", streamer->run_s);
  hidden->add_option("--rate", streamer->total_tokens_per_s);
  hidden->add_option("--hold", streamer->hold_streams);
  hidden->add_option("--tick-ns", streamer->tick_ns);
  hidden->add_flag("--http2", streamer->http2);
  hidden->add_flag("--tls", streamer->tls);
  hidden->add_option("--port-fd", *port_fd)->required();
  hidden->callback([streamer, port_fd, &action]() {
    action = [streamer, port_fd]() { return run_streamer(*streamer, *port_fd); };
  });
}

}  // namespace sm::cli
