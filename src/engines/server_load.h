#pragma once
// How busy the server is, by its own count: requests running (in the engine's batch or a slot)
// and waiting (queued). Read from each engine's metrics (shared engines.md): vLLM and the
// simulated engine `vllm:num_requests_running` / `waiting`, SGLang `sglang:num_running_reqs` /
// `num_queue_reqs`, llama.cpp `llamacpp:requests_processing` / `requests_deferred` (--metrics)
// or else `/slots` (`is_processing`), TGI `tgi_batch_current_size` / `tgi_queue_size`, LMDeploy
// `lmdeploy:num_requests_running` / `waiting`. Which endpoint answers is decided once per run
// (ServerLoadReader::detect); the idle barrier and the window sampler then read it. The same
// body also gives the server's whole reading for telemetry (KV usage, preemptions, ...:
// server_metrics.h, ServerLoadReader::read_reading).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "engines/engine_kind.h"
#include "engines/probe.h"
#include "result/telemetry_types.h"

namespace sm {

/// Requests the server says it holds right now.
struct ServerLoad {
  int64_t running = 0;             ///< being generated (in a batch, or a busy slot)
  std::optional<int64_t> waiting;  ///< queued, not yet running; nullopt when the endpoint does not say
  bool idle() const { return running == 0 && waiting.value_or(0) == 0; }
};

/// Where a server's load is read from.
enum class LoadSource : uint8_t {
  VllmMetrics,      ///< /metrics vllm:num_requests_running / vllm:num_requests_waiting
  SglangMetrics,    ///< /metrics sglang:num_running_reqs / sglang:num_queue_reqs
  LlamaCppMetrics,  ///< /metrics llamacpp:requests_processing / llamacpp:requests_deferred
  LlamaCppSlots,    ///< /slots: slots with is_processing (no queue length)
  TgiMetrics,       ///< /metrics tgi_batch_current_size / tgi_queue_size
  LmDeployMetrics,  ///< /metrics lmdeploy:num_requests_running / lmdeploy:num_requests_waiting
};

/// The path a source is read from: "/metrics" or "/slots".
std::string_view load_path(LoadSource source);
/// What a source reads, for notes: "/metrics vllm:num_requests_running".
std::string_view describe(LoadSource source);

/// The sources to try for an engine, best first; empty when the engine exposes none
/// (Ollama, TensorRT-LLM: its JSON /metrics queue is emptied on every read). An unrecognised
/// server is tried with every Prometheus family.
std::vector<LoadSource> load_sources_for(EngineKind kind);

// Parsers of one response body; nullopt when the body does not carry the source's numbers.
// Prometheus gauges are summed over label sets (one per engine or data-parallel rank); label
// sets that differ only in tp_rank / pp_rank / moe_ep_rank are one engine seen from several ranks
// and count once (across_engines, prometheus.h).
std::optional<ServerLoad> read_vllm_load(std::string_view metrics_text);
std::optional<ServerLoad> read_sglang_load(std::string_view metrics_text);
std::optional<ServerLoad> read_llamacpp_metrics_load(std::string_view metrics_text);
std::optional<ServerLoad> read_llamacpp_slots_load(std::string_view slots_json);
std::optional<ServerLoad> read_tgi_load(std::string_view metrics_text);
std::optional<ServerLoad> read_lmdeploy_load(std::string_view metrics_text);
std::optional<ServerLoad> read_load(LoadSource source, std::string_view body);

/// Reads one server's load, or its whole reading, from the source chosen for it. Copyable; read()
/// and read_reading() are safe to call from any thread (each call is its own blocking request
/// through the transport).
class ServerLoadReader {
 public:
  ServerLoadReader(LoadSource source, std::string base_url, std::vector<std::string> headers, HttpTransport transport);

  /// Tries the engine's sources in order and keeps the first that answers with a readable load.
  /// nullopt: none did (metrics off, no /slots, an engine without them).
  static std::optional<ServerLoadReader> detect(EngineKind kind, const std::string& base_url,
                                                const std::vector<std::string>& headers, const HttpTransport& transport);

  /// One GET and parse. Errors: transport failure, HTTP status, or a body without the numbers.
  Result<ServerLoad> read() const;
  /// One GET, parsed into everything the source carries (server_metrics.h): running always,
  /// the rest where the engine exports it. Its load is load_of(reading). Same errors as read().
  Result<ServerReading> read_reading() const;
  LoadSource source() const { return source_; }

 private:
  LoadSource source_;
  std::string base_url_;
  std::vector<std::string> headers_;
  HttpTransport transport_;
};

/// The production transport for load reads: http_fetch with short timeouts (a sample that takes
/// longer than a few seconds is worth less than the next one), with the run's TLS, proxy and headers.
HttpTransport load_transport(const ConnectionOptions& connection = {});

}  // namespace sm
