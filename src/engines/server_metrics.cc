#include "engines/server_metrics.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engines/prometheus.h"

namespace sm {

namespace {

using Names = std::initializer_list<std::string_view>;

int64_t to_count(double v) { return v <= 0 ? 0 : static_cast<int64_t>(std::llround(std::min(v, 1e15))); }

// One body's samples and the engine-combining rules of prometheus.h, per kind of figure.
struct Metrics {
  std::vector<PromSample> samples;

  std::optional<int64_t> count(Names names) const {
    auto v = across_engines(samples, names, AcrossEngines::Sum);
    return v ? std::optional<int64_t>(to_count(*v)) : std::nullopt;
  }
  std::optional<double> counter(Names names) const {
    auto v = across_engines(samples, names, AcrossEngines::Sum);
    return v && *v >= 0 ? v : std::nullopt;
  }
  // A fraction, 0-1: the fullest engine's. Anything else is not a fraction (an exporter that
  // said percent would read as full), so it is not read.
  std::optional<double> fraction_max(Names names) const {
    auto v = across_engines(samples, names, AcrossEngines::Max);
    return v && *v >= 0 && *v <= 1 ? v : std::nullopt;
  }
  // A hit rate, 0-1: the mean over engines.
  std::optional<double> fraction_mean(Names names) const {
    auto v = across_engines(samples, names, AcrossEngines::Mean);
    return v && *v >= 0 && *v <= 1 ? v : std::nullopt;
  }
  // Tokens per step: the mean over engines.
  std::optional<double> positive_mean(Names names) const {
    auto v = across_engines(samples, names, AcrossEngines::Mean);
    return v && *v >= 0 ? v : std::nullopt;
  }
};

Metrics parse(std::string_view text) { return Metrics{parse_prometheus(text)}; }

}  // namespace

std::optional<ServerReading> read_vllm_reading(std::string_view text) {
  const Metrics m = parse(text);
  ServerReading r;
  r.running = m.count({"vllm:num_requests_running"});
  if (!r.running) return std::nullopt;
  r.waiting = m.count({"vllm:num_requests_waiting"});
  r.kv_usage = m.fraction_max({"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"});
  r.preemptions_total = m.counter({"vllm:num_preemptions_total"});
  r.prefix_cache_queries_total = m.counter({"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"});
  r.prefix_cache_hits_total = m.counter({"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"});
  r.prefix_cache_hit_rate = m.fraction_mean({"vllm:gpu_prefix_cache_hit_rate"});
  r.spec_draft_tokens_total = m.counter({"vllm:spec_decode_num_draft_tokens_total"});
  r.spec_accepted_tokens_total = m.counter({"vllm:spec_decode_num_accepted_tokens_total"});
  r.spec_drafts_total = m.counter({"vllm:spec_decode_num_drafts_total"});
  return r;
}

std::optional<ServerReading> read_sglang_reading(std::string_view text) {
  const Metrics m = parse(text);
  ServerReading r;
  r.running = m.count({"sglang:num_running_reqs", "sglang_num_running_reqs"});
  if (!r.running) return std::nullopt;
  r.waiting = m.count({"sglang:num_queue_reqs", "sglang_num_queue_reqs"});
  r.kv_usage = m.fraction_max({"sglang:token_usage", "sglang_token_usage"});
  r.preemptions_total = m.counter({"sglang:num_retracted_requests_total", "sglang_num_retracted_requests_total"});
  r.prefix_cache_hit_rate = m.fraction_mean({"sglang:cache_hit_rate", "sglang_cache_hit_rate"});
  r.spec_accept_length = m.positive_mean({"sglang:spec_accept_length", "sglang_spec_accept_length"});
  return r;
}

std::optional<ServerReading> read_llamacpp_metrics_reading(std::string_view text) {
  const Metrics m = parse(text);
  ServerReading r;
  r.running = m.count({"llamacpp:requests_processing"});
  if (!r.running) return std::nullopt;
  r.waiting = m.count({"llamacpp:requests_deferred"});
  r.kv_usage = m.fraction_max({"llamacpp:kv_cache_usage_ratio"});
  // Builds that count cached prompt tokens apart count only the others in prompt_tokens_total.
  if (auto cached = m.counter({"llamacpp:prompt_tokens_cached_total"})) {
    if (auto computed = m.counter({"llamacpp:prompt_tokens_total"})) {
      r.prefix_cache_hits_total = cached;
      r.prefix_cache_queries_total = *cached + *computed;
    }
  }
  r.spec_draft_tokens_total = m.counter({"llamacpp:spec_decode_num_draft_tokens_total"});
  r.spec_accepted_tokens_total = m.counter({"llamacpp:spec_decode_num_accepted_tokens_total"});
  return r;
}

std::optional<ServerReading> read_llamacpp_slots_reading(std::string_view slots_json) {
  auto j = nlohmann::json::parse(slots_json, nullptr, false);
  if (!j.is_array()) return std::nullopt;
  int64_t running = 0;
  for (const auto& slot : j) {
    if (!slot.is_object()) return std::nullopt;
    if (auto it = slot.find("is_processing"); it != slot.end() && it->is_boolean()) {
      running += it->get<bool>() ? 1 : 0;
    } else if (auto st = slot.find("state"); st != slot.end() && st->is_number_integer()) {
      running += st->get<int64_t>() != 0 ? 1 : 0;  // older builds: 0 idle, 1 processing
    } else {
      return std::nullopt;
    }
  }
  ServerReading r;
  r.running = running;  // /slots has no queue length: waiting stays unknown
  return r;
}

std::optional<ServerReading> read_tgi_reading(std::string_view text) {
  // TGI registers each gauge when it is first set: a server that never batched has no
  // tgi_batch_current_size yet, and then nothing is running.
  const Metrics m = parse(text);
  auto running = m.count({"tgi_batch_current_size"});
  auto waiting = m.count({"tgi_queue_size"});
  if (!running && !waiting) return std::nullopt;
  ServerReading r;
  r.running = running.value_or(0);
  r.waiting = waiting.value_or(0);
  return r;
}

std::optional<ServerReading> read_lmdeploy_reading(std::string_view text) {
  const Metrics m = parse(text);
  ServerReading r;
  r.running = m.count({"lmdeploy:num_requests_running"});
  if (!r.running) return std::nullopt;
  r.waiting = m.count({"lmdeploy:num_requests_waiting"});
  r.kv_usage = m.fraction_max({"lmdeploy:gpu_cache_usage_perc"});
  r.prefix_cache_hit_rate = m.fraction_mean({"lmdeploy:prefix_cache_hit_rate"});
  return r;
}

std::optional<ServerReading> read_reading(LoadSource source, std::string_view body) {
  switch (source) {
    case LoadSource::VllmMetrics: return read_vllm_reading(body);
    case LoadSource::SglangMetrics: return read_sglang_reading(body);
    case LoadSource::LlamaCppMetrics: return read_llamacpp_metrics_reading(body);
    case LoadSource::LlamaCppSlots: return read_llamacpp_slots_reading(body);
    case LoadSource::TgiMetrics: return read_tgi_reading(body);
    case LoadSource::LmDeployMetrics: return read_lmdeploy_reading(body);
  }
  return std::nullopt;
}

std::optional<ServerLoad> load_of(const ServerReading& reading) {
  if (!reading.running) return std::nullopt;
  return ServerLoad{*reading.running, reading.waiting};
}

}  // namespace sm
