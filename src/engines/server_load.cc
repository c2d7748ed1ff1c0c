#include "engines/server_load.h"

#include <fmt/format.h>
#include <map>

#include "engines/server_metrics.h"
#include "net/url.h"

namespace sm {

namespace {

std::optional<ServerLoad> load_from(const std::optional<ServerReading>& reading) {
  return reading ? load_of(*reading) : std::nullopt;
}

}  // namespace

std::string_view load_path(LoadSource source) { return source == LoadSource::LlamaCppSlots ? "/slots" : "/metrics"; }

std::string_view describe(LoadSource source) {
  switch (source) {
    case LoadSource::VllmMetrics: return "/metrics vllm:num_requests_running and vllm:num_requests_waiting";
    case LoadSource::SglangMetrics: return "/metrics sglang:num_running_reqs and sglang:num_queue_reqs";
    case LoadSource::LlamaCppMetrics: return "/metrics llamacpp:requests_processing and llamacpp:requests_deferred";
    case LoadSource::LlamaCppSlots: return "/slots is_processing";
    case LoadSource::TgiMetrics: return "/metrics tgi_batch_current_size and tgi_queue_size";
    case LoadSource::LmDeployMetrics: return "/metrics lmdeploy:num_requests_running and lmdeploy:num_requests_waiting";
  }
  return "";
}

std::vector<LoadSource> load_sources_for(EngineKind kind) {
  switch (kind) {
    case EngineKind::Vllm: return {LoadSource::VllmMetrics};
    case EngineKind::Sglang: return {LoadSource::SglangMetrics};
    case EngineKind::LlamaCpp: return {LoadSource::LlamaCppMetrics, LoadSource::LlamaCppSlots};
    case EngineKind::Tgi: return {LoadSource::TgiMetrics};
    case EngineKind::LmDeploy: return {LoadSource::LmDeployMetrics};
    case EngineKind::OpenAi:
      return {LoadSource::VllmMetrics, LoadSource::SglangMetrics, LoadSource::LlamaCppMetrics,
              LoadSource::TgiMetrics, LoadSource::LmDeployMetrics};
    case EngineKind::Ollama:       // /api/ps lists loaded models, not requests
    case EngineKind::TensorRtLlm:  // JSON iteration stats, emptied on every read
      return {};
  }
  return {};
}

// The load is the running / waiting part of the whole reading (server_metrics.h): one parser per
// engine, so the idle barrier and the telemetry sampler can never disagree on a body.
std::optional<ServerLoad> read_vllm_load(std::string_view text) { return load_from(read_vllm_reading(text)); }
std::optional<ServerLoad> read_sglang_load(std::string_view text) { return load_from(read_sglang_reading(text)); }
std::optional<ServerLoad> read_llamacpp_metrics_load(std::string_view text) {
  return load_from(read_llamacpp_metrics_reading(text));
}
std::optional<ServerLoad> read_llamacpp_slots_load(std::string_view slots_json) {
  return load_from(read_llamacpp_slots_reading(slots_json));
}
std::optional<ServerLoad> read_tgi_load(std::string_view text) { return load_from(read_tgi_reading(text)); }
std::optional<ServerLoad> read_lmdeploy_load(std::string_view text) { return load_from(read_lmdeploy_reading(text)); }

std::optional<ServerLoad> read_load(LoadSource source, std::string_view body) {
  return load_from(read_reading(source, body));
}

ServerLoadReader::ServerLoadReader(LoadSource source, std::string base_url, std::vector<std::string> headers,
                                   HttpTransport transport)
    : source_(source), base_url_(std::move(base_url)), headers_(std::move(headers)), transport_(std::move(transport)) {}

std::optional<ServerLoadReader> ServerLoadReader::detect(EngineKind kind, const std::string& base_url,
                                                         const std::vector<std::string>& headers,
                                                         const HttpTransport& transport) {
  std::map<std::string_view, std::optional<std::string>> bodies;  // one GET per path
  for (LoadSource source : load_sources_for(kind)) {
    const std::string_view path = load_path(source);
    auto [it, fresh] = bodies.try_emplace(path);
    if (fresh) {
      auto r = transport(HttpRequest{join_url(base_url, path), "", headers});
      if (r && r->status >= 200 && r->status < 300) it->second = std::move(r->body);
    }
    if (it->second && read_load(source, *it->second)) return ServerLoadReader(source, base_url, headers, transport);
  }
  return std::nullopt;
}

Result<ServerReading> ServerLoadReader::read_reading() const {
  const std::string url = join_url(base_url_, load_path(source_));
  auto r = transport_(HttpRequest{url, "", headers_});
  if (!r) return std::unexpected(r.error());
  if (r->status < 200 || r->status >= 300) return fail(ErrorCode::Http, fmt::format("{}: HTTP {}", url, r->status));
  auto reading = sm::read_reading(source_, r->body);
  if (!reading) return fail(ErrorCode::Protocol, fmt::format("{}: no {} in the answer", url, describe(source_)));
  return *std::move(reading);
}

Result<ServerLoad> ServerLoadReader::read() const {
  auto reading = read_reading();
  if (!reading) return std::unexpected(reading.error());
  return *load_of(*reading);  // a reading always has the running count its parser required
}

HttpTransport load_transport(const ConnectionOptions& connection) {
  return [connection](const HttpRequest& req) { return http_fetch(req, FetchOptions{5, 3, 32u << 20, connection}); };
}

}  // namespace sm
