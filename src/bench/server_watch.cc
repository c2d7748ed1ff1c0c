#include "bench/server_watch.h"

#include <fmt/format.h>

#include "engines/request_abort.h"

namespace sm {

std::string no_idle_check_note(EngineKind kind, double quiet_period_s) {
  std::string why;
  switch (kind) {
    case EngineKind::Sglang: why = "SGLang reports its running requests only when started with --enable-metrics"; break;
    case EngineKind::LlamaCpp: why = "llama-server answered neither /metrics (start it with --metrics) nor /slots"; break;
    case EngineKind::Ollama:
    case EngineKind::TensorRtLlm: why = fmt::format("{} does not report its running requests", to_string(kind)); break;
    case EngineKind::OpenAi: why = "the server has no /metrics with a running-request count speedmatrix knows"; break;
    default: why = fmt::format("{}'s /metrics did not answer with its running-request count", to_string(kind)); break;
  }
  return fmt::format("No idle check was possible: {}. Each measurement after cancelled streams started after a "
                     "{:g} s quiet period instead, and the server's own concurrency was not sampled.",
                     why, quiet_period_s);
}

ServerWatch::ServerWatch(ServerWatchOptions options, const Clock& clock, SleepFn sleep,
                         std::function<void(const std::string&)> note)
    : options_(std::move(options)), clock_(clock), sleep_(std::move(sleep)), note_(std::move(note)) {}

ServerWatch::~ServerWatch() {
  if (sampler_) sampler_->stop();
}

const ServerLoadReader* ServerWatch::reader() {
  if (!detected_) {
    detected_ = true;
    reader_ = ServerLoadReader::detect(options_.kind, options_.base_url, options_.headers, options_.transport);
    if (!reader_) note_(no_idle_check_note(options_.kind, static_cast<double>(options_.quiet_period_ns) / 1e9));
  }
  return reader_ ? &*reader_ : nullptr;
}

std::optional<LoadSource> ServerWatch::load_source() const {
  if (!reader_) return std::nullopt;
  return reader_->source();
}

Readiness ServerWatch::before_measurement(const std::function<bool()>& interrupted) {
  Readiness out;
  const bool cut = streams_were_cut_;
  streams_were_cut_ = false;
  const ServerLoadReader* r = reader();
  if (!r) {
    if (cut) sleep_(options_.quiet_period_ns);
    out.interrupted = interrupted && interrupted();
    return out;
  }
  if (options_.drain_timeout_s <= 0) return out;  // --drain-timeout 0: the user turned the check off
  IdleBarrierOptions barrier;
  barrier.timeout_ns = static_cast<int64_t>(options_.drain_timeout_s * 1e9);
  barrier.poll_interval_ns = options_.poll_interval_ns;
  IdleWait wait = wait_until_idle([r] { return r->read(); }, clock_, sleep_, barrier, interrupted);
  out.interrupted = wait.interrupted;
  out.busy = wait.reason;
  return out;
}

void ServerWatch::window_opening(double window_s) {
  const ServerLoadReader* r = reader();
  if (!r) return;
  if (!sampler_) sampler_ = std::make_unique<ServerSampler>([r] { return r->read(); }, clock_);
  sampler_->start(sampling_interval_ns(window_s));
}

void ServerWatch::window_closed(const LoopOutcome& outcome, DecodeCell& cell) {
  if (sampler_) {
    std::vector<LoadSample> samples = sampler_->stop();
    if (outcome.window_opened) {
      WindowLoad load = mean_in_window(samples, outcome.window.begin_ns, outcome.window.end_ns);
      cell.server_running_mean = load.running_mean;
      cell.server_waiting_mean = load.waiting_mean;
    }
  }
  for (const auto& rec : outcome.records)
    if (rec.end == RequestEnd::Cut) streams_were_cut_ = true;
  if (aborts_by_request_id(options_.kind)) abort_cut_requests(outcome.records);
}

void ServerWatch::abort_cut_requests(const std::vector<RequestRecord>& records) {
  for (const auto& rec : records) {
    if (rec.end != RequestEnd::Cut || rec.server_id.empty()) continue;
    auto ok = abort_request(options_.kind, options_.base_url, options_.headers, rec.server_id, options_.transport);
    if (!ok && !abort_failure_noted_) {
      abort_failure_noted_ = true;
      note_(fmt::format("{} did not abort the requests cut at a window's end ({}); their streams were only closed, "
                        "and the idle barrier waits for the server to finish them",
                        to_string(options_.kind), ok.error().message));
    }
  }
}

}  // namespace sm
