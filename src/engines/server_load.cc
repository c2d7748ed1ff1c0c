#include "engines/server_load.h"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

#include "engines/prometheus.h"
#include "net/url.h"

namespace sm {

namespace {

// A gauge summed over engines: label sets that differ only in tensor/pipeline-parallel rank are
// the same engine reported by each of its ranks, so they count once (the largest value).
std::optional<double> gauge_sum(const std::vector<PromSample>& samples, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {  // aliases: the first name present wins, never both
    std::map<std::map<std::string, std::string>, double> per_engine;
    bool found = false;
    for (const auto& s : samples) {
      if (s.name != name || !std::isfinite(s.value)) continue;
      found = true;
      auto labels = s.labels;
      labels.erase("tp_rank");
      labels.erase("pp_rank");
      auto [it, inserted] = per_engine.emplace(std::move(labels), s.value);
      if (!inserted) it->second = std::max(it->second, s.value);
    }
    if (!found) continue;
    double sum = 0;
    for (const auto& [labels, v] : per_engine) sum += v;
    return sum;
  }
  return std::nullopt;
}

int64_t to_count(double v) { return v <= 0 ? 0 : static_cast<int64_t>(std::llround(std::min(v, 1e15))); }

// Running is required; waiting is whatever the server says.
std::optional<ServerLoad> prometheus_load(std::string_view text, std::initializer_list<std::string_view> running,
                                          std::initializer_list<std::string_view> waiting) {
  const auto samples = parse_prometheus(text);
  auto r = gauge_sum(samples, running);
  if (!r) return std::nullopt;
  ServerLoad load;
  load.running = to_count(*r);
  if (auto w = gauge_sum(samples, waiting)) load.waiting = to_count(*w);
  return load;
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

std::optional<ServerLoad> read_vllm_load(std::string_view text) {
  return prometheus_load(text, {"vllm:num_requests_running"}, {"vllm:num_requests_waiting"});
}

std::optional<ServerLoad> read_sglang_load(std::string_view text) {
  // Some SGLang releases export underscore names (sglang_num_running_reqs).
  return prometheus_load(text, {"sglang:num_running_reqs", "sglang_num_running_reqs"},
                         {"sglang:num_queue_reqs", "sglang_num_queue_reqs"});
}

std::optional<ServerLoad> read_llamacpp_metrics_load(std::string_view text) {
  return prometheus_load(text, {"llamacpp:requests_processing"}, {"llamacpp:requests_deferred"});
}

std::optional<ServerLoad> read_llamacpp_slots_load(std::string_view slots_json) {
  auto j = nlohmann::json::parse(slots_json, nullptr, false);
  if (!j.is_array()) return std::nullopt;
  ServerLoad load;
  for (const auto& slot : j) {
    if (!slot.is_object()) return std::nullopt;
    if (auto it = slot.find("is_processing"); it != slot.end() && it->is_boolean()) {
      load.running += it->get<bool>() ? 1 : 0;
    } else if (auto st = slot.find("state"); st != slot.end() && st->is_number_integer()) {
      load.running += st->get<int64_t>() != 0 ? 1 : 0;  // older builds: 0 idle, 1 processing
    } else {
      return std::nullopt;
    }
  }
  return load;  // /slots has no queue length: waiting stays unknown
}

std::optional<ServerLoad> read_tgi_load(std::string_view text) {
  // TGI registers each gauge when it is first set: a server that never batched has no
  // tgi_batch_current_size yet, and then nothing is running.
  const auto samples = parse_prometheus(text);
  auto running = gauge_sum(samples, {"tgi_batch_current_size"});
  auto waiting = gauge_sum(samples, {"tgi_queue_size"});
  if (!running && !waiting) return std::nullopt;
  ServerLoad load;
  load.running = to_count(running.value_or(0));
  load.waiting = to_count(waiting.value_or(0));
  return load;
}

std::optional<ServerLoad> read_lmdeploy_load(std::string_view text) {
  return prometheus_load(text, {"lmdeploy:num_requests_running"}, {"lmdeploy:num_requests_waiting"});
}

std::optional<ServerLoad> read_load(LoadSource source, std::string_view body) {
  switch (source) {
    case LoadSource::VllmMetrics: return read_vllm_load(body);
    case LoadSource::SglangMetrics: return read_sglang_load(body);
    case LoadSource::LlamaCppMetrics: return read_llamacpp_metrics_load(body);
    case LoadSource::LlamaCppSlots: return read_llamacpp_slots_load(body);
    case LoadSource::TgiMetrics: return read_tgi_load(body);
    case LoadSource::LmDeployMetrics: return read_lmdeploy_load(body);
  }
  return std::nullopt;
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

Result<ServerLoad> ServerLoadReader::read() const {
  const std::string url = join_url(base_url_, load_path(source_));
  auto r = transport_(HttpRequest{url, "", headers_});
  if (!r) return std::unexpected(r.error());
  if (r->status < 200 || r->status >= 300) return fail(ErrorCode::Http, fmt::format("{}: HTTP {}", url, r->status));
  auto load = read_load(source_, r->body);
  if (!load) return fail(ErrorCode::Protocol, fmt::format("{}: no {} in the answer", url, describe(source_)));
  return *load;
}

HttpTransport load_transport() {
  return [](const HttpRequest& req) { return http_fetch(req, FetchOptions{5, 3, 32u << 20}); };
}

}  // namespace sm
