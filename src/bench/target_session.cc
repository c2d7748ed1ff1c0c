#include "bench/target_session.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>

#include "bench/attribution.h"
#include "bench/connection_record.h"
#include "bench/run_folder.h"
#include "bench/run_secrets.h"
#include "core/build_info.h"
#include "engines/request_builder.h"
#include "engines/server_load.h"
#include "net/http_fetch.h"
#include "net/url.h"
#include "result/redact.h"
#include "sim/calc_sim_config.h"
#include "system/local_processes.h"
#include "telemetry/server_gpus.h"

namespace sm {

TargetSession::TargetSession(const TargetConfig& target, bool redact_host, const Clock& clock, NoteFn note)
    : target_(target),
      clock_(clock),
      redact_host_(redact_host),
      note_(std::move(note)),
      base_url_(target.base_url),
      connection_(target.connection),
      headers_(bearer_headers(target.api_key)) {}

// No target given: the simulated engine (the seed's RTX 3090 + Qwen3.5-4B AWQ + vLLM) serves
// on loopback inside this process, and everything says "simulated".
Result<void> TargetSession::start_embedded_engine(int64_t attention_window_tokens) {
  auto sim_config = sim::seed_sim_config();
  if (!sim_config) return std::unexpected(sim_config.error());
  sim_config->attention_window_tokens = attention_window_tokens;
  auto server = sim::SimServer::start(*sim_config);
  if (!server) return std::unexpected(server.error());
  sim_ = std::move(*server);
  base_url_ = sim_->base_url();
  connection_.proxy = "";  // in this process, on loopback: never through a proxy
  return {};
}

Result<void> TargetSession::launch(const std::string& command, bool port_check, double timeout_s) {
  launched_ = true;
  std::error_code ec;
  std::filesystem::create_directories("runs", ec);
  launch_log_path_ = fmt::format("runs/.server-{}.log", ::getpid());
  // Something already on the port would make the launch fail, or be measured in its place.
  if (port_check)
    if (auto free = check_port_free(url_host(base_url_), url_port(base_url_)); !free) return free;
  std::fprintf(stderr, "speedmatrix: starting the server: %s\n", redact_command(command, redact_options()).c_str());
  // The server's log is written redacted: vLLM, for one, prints its own --api-key.
  if (auto ok = server_.start(command, launch_log_path_, redact_options()); !ok) return ok;
  // Not over HTTP/2 yet: a server that speaks only HTTP/1.1 would never look healthy.
  ConnectionOptions health = connection_;
  health.http2 = false;
  return server_.wait_healthy(join_url(base_url_, "/health"), timeout_s, health);
}

// Into the run folder, on another file system too (a copy); a failure is said, not swallowed.
void TargetSession::move_server_log(const std::string& path) {
  if (auto moved = server_.move_log(path); moved)
    launch_log_path_ = path;
  else
    note(fmt::format("the server's log stays at {}: {}", launch_log_path_, moved.error().message));
}

// Secrets never leave the machine: everything written or printed goes through these
// (docs/ARCHITECTURE.md, "Secrets").
RedactOptions TargetSession::redact_options() const { return run_redact_options(target_, base_url_, redact_host_); }

ConnectionInfo TargetSession::connection_info() const {
  return connection_record(base_url_, connection_, target_.connection.http2, round_trip_);
}

void TargetSession::open_result(RunResult& result, int64_t now_ms, const RunConfig& attribution) const {
  result.tool_version = build::kVersion;
  result.tool_commit = build::kGitCommit;
  result.tool_build_type = build::kBuildType;
  result.run_id = new_run_id(now_ms);
  result.kind = probe_.simulated ? "simulated" : "measured";
  char buf[32];
  result.started_at = std::string(format_iso8601_utc(now_ms, buf));
  result.target_url = base_url_;
  result.engine = probe_.engine;
  result.connection = connection_info();
  attribute_hardware(result, attribution, base_url_);
  if (sim_) attribute_simulated_hardware(result);
}

StreamClientOptions TargetSession::client_options() const {
  StreamClientOptions o;
  o.connect_timeout_s = target_.connect_timeout_s;
  o.read_timeout_s = target_.read_timeout_s;
  o.busy_poll_ns = target_.busy_poll_ns;
  o.connection = connection_;
  return o;
}

HttpRequest TargetSession::completion_request(std::string prompt, int64_t max_tokens, double temperature) const {
  CompletionSpec spec;
  spec.prompt = std::move(prompt);
  return streamed_request(std::move(spec), max_tokens, temperature);
}

HttpRequest TargetSession::streamed_request(CompletionSpec spec, int64_t max_tokens, double temperature) const {
  spec.model = probe_.engine.model;
  spec.max_tokens = max_tokens;
  spec.temperature = temperature;
  spec.force_length = !target_.natural_eos;
  return HttpRequest{join_url(base_url_, completion_path(target_.api)),
                     build_completion_body(probe_.kind, target_.api, spec), headers_};
}

HttpRequest TargetSession::conversation_request(const std::vector<ChatMessage>& messages, std::string_view separator,
                                                int64_t max_tokens, double temperature) const {
  if (target_.api != ApiKind::Chat) {
    std::string prompt;
    for (const ChatMessage& m : messages) {
      if (!prompt.empty()) prompt.append(separator);
      prompt.append(m.content);
    }
    return completion_request(std::move(prompt), max_tokens, temperature);
  }
  CompletionSpec spec;
  spec.messages = messages;
  return streamed_request(std::move(spec), max_tokens, temperature);
}

Result<void> TargetSession::connect() {
  const HttpRequest models{join_url(base_url_, "/v1/models"), "", headers_};
  if (connection_.http2 && !is_https_url(base_url_) && !libcurl_reuses_cleartext_http2()) {
    note(
        fmt::format("--http2: this libcurl ({}) cannot reuse an HTTP/2 connection over plain http (curl issue "
                    "#10634, fixed in 8.0.0); the run uses HTTP/1.1. HTTP/2 over https works",
                    libcurl_version()));
    connection_.http2 = false;
  }
  auto measured = measure_round_trip(models, connection_, kRoundTripRequests);
  if (!measured && connection_.http2 && !is_https_url(base_url_)) {
    ConnectionOptions plain = connection_;
    plain.http2 = false;
    if (auto retried = measure_round_trip(models, plain, kRoundTripRequests)) {
      note("--http2: the server does not speak HTTP/2 over plain http (prior knowledge failed: " +
           measured.error().message + "); the run uses HTTP/1.1");
      connection_ = plain;
      measured = std::move(retried);
    }
  }
  if (!measured) return std::unexpected(measured.error());
  if (measured->http_status == 401 || measured->http_status == 403)
    return fail(ErrorCode::Http,
                fmt::format("{} answered HTTP {}: the server wants credentials: --api-key KEY (sent as "
                            "Authorization: Bearer), or the header it expects with --header 'Name: value'",
                            models.url, measured->http_status));
  if (connection_.http2 && measured->http_version != "2")
    note(fmt::format("--http2: the server answered with HTTP/{}; each stream gets its own connection",
                     measured->http_version.empty() ? "?" : measured->http_version));
  if (connection_.insecure && is_https_url(base_url_))
    note("--insecure: the server's TLS certificate is not checked; the result and the report say so");
  round_trip_ = std::move(*measured);
  return {};
}

void TargetSession::measure_round_trip_or_note() {
  if (auto measured = measure_round_trip(HttpRequest{join_url(base_url_, "/v1/models"), "", headers_}, connection_,
                                         kRoundTripRequests))
    round_trip_ = std::move(*measured);
  else
    note("the network round trip could not be measured: " + measured.error().message);
}

Result<void> TargetSession::probe() {
  ProbeOptions opts{base_url_, headers_, target_.model};
  auto probed = probe_server(opts, default_transport(connection_));
  if (!probed) return std::unexpected(probed.error());
  probe_ = std::move(*probed);
  if (probe_.kind == EngineKind::LlamaCpp && !launch_log_path_.empty()) {
    // The launched server's own log says whether its KV cache is unified: then every slot
    // shares one window and the capacity is that window, not window x slots.
    std::string log;
    if (FILE* f = std::fopen(launch_log_path_.c_str(), "r")) {
      char buf[65536];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) log.append(buf, n);
      std::fclose(f);
    }
    if (auto unified = llamacpp_kv_unified_from_log(log)) {
      std::erase_if(probe_.notes, [](const std::string& n) { return n.starts_with("llama.cpp: KV capacity assumes"); });
      if (*unified && probe_.engine.max_model_len) {
        probe_.engine.kv_capacity_tokens = probe_.engine.max_model_len;
        probe_.engine.kv_capacity_source = "/props n_ctx (unified KV cache, from the server log)";
      } else if (!*unified) {
        probe_.engine.kv_capacity_source += " (non-unified KV cache, from the server log)";
      }
    }
  }
  for (const auto& n : probe_.notes) note(n);
  return {};
}

// speedmatrix itself (the embedded engine runs inside it) and, for a server on this machine, the
// server and its children: a launched one by its process, a --url one by the socket it listens on.
std::vector<int> TargetSession::measurement_processes(bool server_here) {
  std::vector<int> pids{static_cast<int>(getpid())};
  if (!server_here || sim_) return pids;
  std::vector<int> roots;
  if (launched_ && server_.pid() > 0)
    roots.push_back(server_.pid());
  else
    roots = processes_listening_on(url_port(base_url_));
  for (int root : roots)
    for (int pid : process_tree(root))
      if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
  if (pids.size() == 1) {
    // Its load would read as other load: better no figure than a false "busy host".
    note(
        "the server's processes could not be found (another user's, without root?): a busy host cannot be told "
        "apart from the server's own load");
    return {};
  }
  return pids;
}

// The sampler thread runs for the whole run; it is only ever asked for a sample or a summary
// between windows. Without NVML (or for the embedded engine) the run has no GPU telemetry and
// says why once.
Result<void> TargetSession::start_telemetry_sampling(const RunConfig& config, RunResult& result,
                                                     const std::string& run_dir, ProgressLine& progress) {
  if (!config.telemetry && !config.server_gpus.empty()) {
    // No GPU readings to choose from: the declaration still narrows the probed GPU list
    // (nvidia-smi's order, the NVML indices).
    std::vector<GpuStaticInfo> listed(result.hardware.gpus.size());
    std::vector<int> positions;
    for (size_t i = 0; i < listed.size(); ++i) positions.push_back(listed[i].index = static_cast<int>(i));
    ServerGpuEvidence declared;
    declared.declared = split_gpu_list(config.server_gpus);
    auto chosen = choose_server_gpus(declared, listed);
    if (!chosen) return std::unexpected(chosen.error());
    keep_server_gpus(result.hardware, chosen->indices, positions);
  }
  if (!config.telemetry || run_dir.empty()) return {};
  TelemetrySetupOptions o;
  o.interval_s = config.telemetry_interval_s;
  o.nvml_lib = config.nvml_lib;
  o.sys_root = config.sys_root;
  o.host_root = config.host_root;
  o.simulated_engine = sim_ != nullptr;
  o.remote_target =
      result.hardware.source == HardwareSource::Declared || result.hardware.source == HardwareSource::Unknown;
  o.kind = probe_.kind;
  o.base_url = base_url_;
  o.headers = headers_;
  o.transport = load_transport(connection_);
  o.run_dir = run_dir;
  o.series_file = result.resumes > 0 ? fmt::format("telemetry-resume{}.jsonl", result.resumes) : "telemetry.jsonl";
  o.own_pids = measurement_processes(!o.remote_target);
  for (int pid : o.own_pids)
    if (pid != static_cast<int>(getpid())) o.server_pids.push_back(pid);
  o.declared_server_gpus = split_gpu_list(config.server_gpus);
  telemetry_ = start_telemetry(o, clock_, [this](const std::string& n) {
    // From the sampler thread too: queued, and taken into the result on the measuring thread
    // (take_telemetry_notes).
    std::lock_guard lock(telemetry_notes_mu_);
    telemetry_notes_.push_back(n);
  });
  if (!telemetry_.refused.empty()) return fail(ErrorCode::InvalidArgument, telemetry_.refused);
  if (!result.telemetry || result.resumes == 0) result.telemetry = telemetry_.info;
  if (!telemetry_.info.server_gpus_source.empty()) {
    std::vector<int> sampled;
    for (const auto& g : telemetry_.info.gpus) sampled.push_back(g.index);
    keep_server_gpus(result.hardware, telemetry_.info.server_gpus, sampled);
  }
  auto* recorder = telemetry_.recorder.get();
  // The live power is the server's GPUs' only: none when they are not (a remote server, none used).
  if (telemetry_.gpu_figures) progress.set_detail([recorder] { return live_telemetry_text(recorder->live()); });
  return {};
}

CellTelemetry TargetSession::window_telemetry(const WindowMark& mark) {
  if (!telemetry_.recorder) return {};
  telemetry_.recorder->sample_now();
  telemetry_.recorder->mark(mark);
  return telemetry_.recorder->summarize(mark.begin_ns, mark.end_ns, mark.tokens, telemetry_.gpu_figures);
}

std::vector<std::string> TargetSession::take_telemetry_notes() {
  std::lock_guard lock(telemetry_notes_mu_);
  std::vector<std::string> notes = std::move(telemetry_notes_);
  telemetry_notes_.clear();
  return notes;
}

void TargetSession::stop_telemetry() {
  if (telemetry_.recorder) telemetry_.recorder->stop();
}

}  // namespace sm
