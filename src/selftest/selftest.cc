#include "selftest/selftest.h"

#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <charconv>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <string_view>

#include "core/clock.h"
#include "engines/chunk_parser.h"
#include "metrics/output_check_worker.h"
#include "metrics/request_record.h"
#include "net/stream_client.h"

extern char** environ;

namespace sm {

namespace {

// A running streamer child process; killed on destruction.
class StreamerProcess {
 public:
  static Result<std::unique_ptr<StreamerProcess>> start(const std::string& exe, double run_s, double paced_tok_s,
                                                         int64_t hold_streams, int64_t tick_ns, bool http2, bool tls) {
    int fds[2];
    if (pipe(fds) != 0) return fail(ErrorCode::Io, "pipe failed");
    auto p = std::make_unique<StreamerProcess>();
    std::string run = fmt::format("{}", run_s), rate = fmt::format("{}", paced_tok_s), fd = std::to_string(fds[1]);
    std::vector<std::string> args = {exe,  "selftest-streamer", "--seconds", run, "--rate", rate, "--port-fd", fd,
                                     "--hold", std::to_string(hold_streams), "--tick-ns", std::to_string(tick_ns)};
    if (http2) args.push_back("--http2");
    if (tls) args.push_back("--tls");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    int rc = posix_spawn(&p->pid_, exe.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
      ::close(fds[0]);
      return fail(ErrorCode::Io, fmt::format("cannot start the self-test streamer ({}): {}", exe, std::strerror(rc)));
    }
    char buf[32] = {0};
    ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
    ::close(fds[0]);
    if (n <= 0) return fail(ErrorCode::Io, "the self-test streamer did not start");
    p->port_ = std::atoi(buf);
    return p;
  }
  ~StreamerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// The benchmark's per-chunk work (SSE decode by the client, chunk parse, stamp record), plus
// reading the streamer's send time for the lag.
class IngestHandler final : public StreamHandler {
 public:
  IngestHandler(bool track_lag, bool check_output)
      : track_lag_(track_lag), check_output_(check_output), lag_us_histogram_(kLagBuckets + 1, 0) {}

  bool on_event(uint64_t id, int64_t t_ns, std::string_view data) override {
    parser_.parse(data, chunk_);
    if (chunk_.kind == ChunkInfo::Kind::Invalid) {
      last_error_ = chunk_.error_message + ": " + std::string(data.substr(0, 600));
      return false;
    }
    if (chunk_.kind != ChunkInfo::Kind::Data || !chunk_.has_token) return true;
    if (id < started_.size() && !started_[id]) {
      started_[id] = true;
      ++streams_started_;
    }
    if (counting_) {
      ++tokens_;
      chunks_[id % chunks_.size()].push_back({t_ns, 1});
      // Kept like a request's record (time + tokens per chunk), bounded so a stream that never
      // ends does not grow: a real request's record is bounded by its max output.
      if (chunks_[id % chunks_.size()].size() >= kRecordChunks) chunks_[id % chunks_.size()].clear();
      // The run's output checks (loops, text that is not text), as every request of a run has them:
      // the text copied into the stream's batch here, checked on the worker's thread.
      if (output_checks_) {
        OutputBatch& batch = batches_[id % batches_.size()];
        batch.add(chunk_.reasoning, chunk_.text, 1);
        if (batch.full()) output_checks_->submit(id % batches_.size(), batch.take());
      }
    }
    if (track_lag_ && counting_) {
      size_t at = data.rfind("\"t\":");
      if (at != std::string_view::npos) {
        int64_t sent_ns = 0;
        const char* p = data.data() + at + 4;
        while (p < data.data() + data.size() && *p == ' ') ++p;
        std::from_chars(p, data.data() + data.size(), sent_ns);
        int64_t lag_us = (t_ns - sent_ns) / 1000;
        lag_us_histogram_[static_cast<size_t>(std::clamp<int64_t>(lag_us, 0, kLagBuckets))]++;
      }
    }
    return true;
  }
  void on_end(uint64_t, int64_t, const TransferEnd& end) override {
    if (!end.ok && !end.cancelled) {
      ++failures_;
      if (last_error_.empty()) last_error_ = end.error;
    }
  }
  const std::string& last_error() const { return last_error_; }

  void expect_streams(size_t n) { started_.assign(n + 1, false); }
  size_t streams_started() const { return streams_started_; }
  void start_counting(size_t streams) {
    counting_ = true;
    chunks_.assign(std::max<size_t>(streams, 1), {});
    batches_.assign(std::max<size_t>(streams, 1), {});
    if (check_output_ && !output_checks_) output_checks_ = std::make_unique<OutputCheckWorker>();
  }
  void stop_counting() { counting_ = false; }
  int64_t tokens() const { return tokens_; }
  int64_t failures() const { return failures_; }
  double lag_percentile_us(double q) const {
    int64_t total = 0;
    for (auto c : lag_us_histogram_) total += c;
    if (total == 0) return 0;
    int64_t target = static_cast<int64_t>(q * static_cast<double>(total - 1));
    int64_t seen = 0;
    for (size_t i = 0; i < lag_us_histogram_.size(); ++i) {
      seen += lag_us_histogram_[i];
      if (seen > target) return static_cast<double>(i);
    }
    return static_cast<double>(kLagBuckets);
  }

 private:
  static constexpr int64_t kLagBuckets = 1'000'000;  ///< 1 µs buckets up to 1 s
  static constexpr size_t kRecordChunks = 1024;       ///< chunk stamps kept per stream (16 KiB)
  bool track_lag_;
  bool check_output_;
  bool counting_ = false;
  int64_t tokens_ = 0;
  int64_t failures_ = 0;
  std::string last_error_;
  ChunkParser parser_;
  ChunkInfo chunk_;
  std::vector<std::vector<ChunkStamp>> chunks_;
  std::vector<OutputBatch> batches_;                  ///< by stream, like chunks_
  std::unique_ptr<OutputCheckWorker> output_checks_;  ///< with check_output_: its own thread
  std::vector<bool> started_;  ///< by stream id: produced a token
  size_t streams_started_ = 0;
  std::vector<int64_t> lag_us_histogram_;
};

void raise_fd_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
}

void reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
}

double peak_rss_mib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return 0;
}

struct PhaseResult {
  double tokens_per_s = 0;
  double lag_p50_us = 0;
  double lag_p99_us = 0;
};

// Streams `streams` requests against a streamer for warm-up + `seconds`.
Result<PhaseResult> run_phase(const SelftestOptions& options, int64_t streams, double seconds, double paced_tok_s) {
  const std::string& exe = options.self_exe;
  const double warmup_s = 0.5;
  // The streamer outlives the phase by far (it is killed when the phase ends): a saturated
  // client returns to its loop only every few seconds at thousands of streams, and a streamer
  // that exits first would cut every stream mid-chunk.
  auto streamer = StreamerProcess::start(exe, warmup_s + seconds + 600, paced_tok_s, streams, options.streamer_tick_ns,
                                         options.http2, options.tls);
  if (!streamer) return std::unexpected(streamer.error());
  const Clock& clock = SteadyClock::instance();
  IngestHandler handler(paced_tok_s > 0, options.output_checks);
  StreamClientOptions client_options;
  client_options.connect_timeout_s = 10;
  client_options.read_timeout_s = 30;
  client_options.busy_poll_ns = options.busy_poll_ns;
  client_options.connection.proxy = "";  // loopback: never through a proxy from the environment
  client_options.connection.http2 = options.http2;
  client_options.connection.insecure = options.tls;  // its own child's throwaway certificate, on loopback
  StreamClient client(clock, handler, client_options);
  const std::string url =
      fmt::format("{}://127.0.0.1:{}/v1/completions", options.tls ? "https" : "http", (*streamer)->port());
  const std::string body = R"({"model":"selftest","prompt":"hi","max_tokens":1000000000,"stream":true})";
  handler.expect_streams(static_cast<size_t>(streams));
  for (int64_t i = 0; i < streams; ++i) client.start(static_cast<uint64_t>(i + 1), HttpRequest{url, body, {}});
  // Every stream connected and streaming before the clock starts (connects take a while at 4,096).
  const int64_t ramp_deadline_ns = clock.now_ns() + 20 * kNsPerS;
  while (handler.streams_started() < static_cast<size_t>(streams) && clock.now_ns() < ramp_deadline_ns)
    client.run_until(clock.now_ns() + 50 * kNsPerMs);
  client.run_until(clock.now_ns() + static_cast<int64_t>(warmup_s * 1e9));
  handler.start_counting(static_cast<size_t>(streams));
  const int64_t t0 = clock.now_ns();
  client.run_until(t0 + static_cast<int64_t>(seconds * 1e9));
  const int64_t t1 = clock.now_ns();
  handler.stop_counting();
  client.cancel_all();
  if (handler.tokens() == 0)
    return fail(ErrorCode::Network, fmt::format("self-test: no tokens at {} streams ({} failed; last: {})", streams,
                                                handler.failures(), handler.last_error()));
  PhaseResult r;
  r.tokens_per_s = static_cast<double>(handler.tokens()) / (static_cast<double>(t1 - t0) / 1e9);
  r.lag_p50_us = handler.lag_percentile_us(0.5);
  r.lag_p99_us = handler.lag_percentile_us(0.99);
  return r;
}

std::optional<double> run_python(const std::string& exe, int64_t streams, double seconds) {
  // The comparison client lives beside the binary's sources; found through the environment or
  // relative to the binary (build/ is inside the source tree).
  std::string script;
  if (const char* env = std::getenv("SPEEDMATRIX_PYTHON_CLIENT")) script = env;
  if (script.empty()) {
    char buf[4096];
    ssize_t n = readlink(exe.c_str(), buf, sizeof buf - 1);
    if (n > 0) {
      std::string dir(buf, static_cast<size_t>(n));
      for (int up = 0; up < 4 && !dir.empty(); ++up) {
        dir = dir.substr(0, dir.find_last_of('/'));
        std::string candidate = dir + "/bench/python_stream_client.py";
        if (access(candidate.c_str(), R_OK) == 0) {
          script = candidate;
          break;
        }
      }
    }
  }
  if (script.empty()) return std::nullopt;
  auto streamer = StreamerProcess::start(exe, seconds + 600, 0, streams, 0, false, false);
  if (!streamer) return std::nullopt;
  // Debian's python3 carries python3-aiohttp (scripts/setup installs it).
  const char* python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  std::string cmd = fmt::format("{} '{}' --url http://127.0.0.1:{}/v1/completions --streams {} --seconds {} 2>/dev/null", python,
                                script, (*streamer)->port(), streams, seconds);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  char out[256] = {0};
  size_t n = fread(out, 1, sizeof out - 1, p);
  if (pclose(p) != 0 || n == 0) return std::nullopt;
  double v = std::atof(out);
  return v > 0 ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

Result<std::vector<SelftestPoint>> run_selftest(const SelftestOptions& options) {
  raise_fd_limit();
  std::vector<SelftestPoint> points;
  for (int64_t streams : options.streams) {
    SelftestPoint p;
    p.streams = streams;
    reset_peak_rss();
    auto ceiling = run_phase(options, streams, options.seconds, 0);
    if (!ceiling) return std::unexpected(ceiling.error());
    p.tokens_per_s = ceiling->tokens_per_s;
    if (options.lag) {
      // Real servers send one token per chunk, each stream at tens of tokens/s when thousands
      // run at once: pace at options.paced_tok_s_per_stream (one chunk per token), never above a
      // quarter of the ceiling.
      p.paced_tokens_per_s =
          std::min(options.paced_tok_s_per_stream * static_cast<double>(streams), p.tokens_per_s / 4);
      auto paced = run_phase(options, streams, options.seconds, p.paced_tokens_per_s);
      if (!paced) return std::unexpected(paced.error());
      p.lag_p50_us = paced->lag_p50_us;
      p.lag_p99_us = paced->lag_p99_us;
    }
    p.rss_mib = peak_rss_mib();
    if (options.python) p.python_tokens_per_s = run_python(options.self_exe, streams, options.seconds);
    points.push_back(p);
  }
  return points;
}

Result<double> quick_client_ceiling(const std::string& self_exe) {
  raise_fd_limit();
  SelftestOptions options;
  options.self_exe = self_exe;
  auto r = run_phase(options, 64, 0.5, 0);
  if (!r) return std::unexpected(r.error());
  return r->tokens_per_s;
}

}  // namespace sm
