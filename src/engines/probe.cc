#include "engines/probe.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engines/prometheus.h"
#include "net/url.h"
#include "result/redact.h"

namespace sm {

using nlohmann::json;

namespace {

json parse_json(std::string_view text) { return json::parse(text, nullptr, false); }

// A token count sent as a float; nullopt when it cannot be one (negative, NaN, out of range:
// converting those to an integer is undefined behaviour).
std::optional<int64_t> count_from_double(double v) {
  if (!(v >= 0 && v < 9.0e18)) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<int64_t> int_field(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_number_float()) return count_from_double(it->get<double>());
  if (it->is_string()) {
    try {
      return std::stoll(it->get<std::string>());
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string str_field(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<int64_t> label_int(const PromSample& s, const char* name) {
  auto it = s.labels.find(name);
  if (it == s.labels.end()) return std::nullopt;
  try {
    size_t used = 0;
    double v = std::stod(it->second, &used);
    if (used == 0) return std::nullopt;
    return count_from_double(v);
  } catch (...) {
    return std::nullopt;
  }
}

struct Getter {
  const ProbeOptions& options;
  const HttpTransport& transport;

  // GET a path; the body when 2xx, nullopt otherwise (404 is the normal "not this engine").
  std::optional<HttpResponse> get(const std::string& path) const {
    HttpRequest req{join_url(options.base_url, path), "", options.headers};
    auto r = transport(req);
    if (!r || r->status < 200 || r->status >= 300) return std::nullopt;
    return *r;
  }
  std::optional<json> get_json(const std::string& path) const {
    auto r = get(path);
    if (!r) return std::nullopt;
    json j = parse_json(r->body);
    if (j.is_discarded()) return std::nullopt;
    return j;
  }
};

void apply(const CapacityReading& c, ProbeResult& out) {
  if (c.kv_capacity_tokens) {
    out.engine.kv_capacity_tokens = c.kv_capacity_tokens;
    out.engine.kv_capacity_source = c.source;
  }
  if (c.max_model_len) out.engine.max_model_len = c.max_model_len;
  if (c.slots) out.engine.slots = c.slots;
}

}  // namespace

CapacityReading read_vllm_metrics(std::string_view metrics_text) {
  CapacityReading c;
  auto samples = parse_prometheus(metrics_text);
  // One label set per data-parallel engine; a request lives in one engine, so take the smallest.
  for (const auto& s : samples) {
    if (s.name != "vllm:cache_config_info") continue;
    std::optional<int64_t> tokens = label_int(s, "kv_cache_size_tokens");
    std::string source = "/metrics vllm:cache_config_info kv_cache_size_tokens";
    if (!tokens) {
      auto blocks = label_int(s, "num_gpu_blocks");
      auto block_size = label_int(s, "block_size");
      if (blocks && block_size) tokens = *blocks * *block_size;
      source = "/metrics vllm:cache_config_info num_gpu_blocks x block_size";
    }
    if (tokens && (!c.kv_capacity_tokens || *tokens < *c.kv_capacity_tokens)) {
      c.kv_capacity_tokens = tokens;
      c.source = source;
    }
  }
  return c;
}

CapacityReading read_sglang_server_info(std::string_view json_text) {
  CapacityReading c;
  json j = parse_json(json_text);
  if (!j.is_object()) return c;
  auto tokens = int_field(j, "max_total_num_tokens");
  if (!tokens) {
    if (auto it = j.find("internal_states"); it != j.end() && it->is_array() && !it->empty())
      tokens = int_field((*it)[0], "max_total_num_tokens");
  }
  if (tokens) {
    c.kv_capacity_tokens = tokens;
    c.source = "/get_server_info max_total_num_tokens";
  }
  c.max_model_len = int_field(j, "context_length");
  c.slots = int_field(j, "max_running_requests");
  return c;
}

CapacityReading read_llamacpp_props(std::string_view json_text) {
  CapacityReading c;
  json j = parse_json(json_text);
  if (!j.is_object()) return c;
  std::optional<int64_t> slot_ctx;
  if (auto it = j.find("default_generation_settings"); it != j.end() && it->is_object())
    slot_ctx = int_field(*it, "n_ctx");
  c.slots = int_field(j, "total_slots");
  if (slot_ctx) {
    c.max_model_len = slot_ctx;
    // Per-slot windows: the cache holds n_ctx per slot for every slot (non-unified KV). With a
    // unified KV cache slot n_ctx is already the whole cache; /props does not say which, so the
    // per-slot product is an upper bound and --kv-capacity corrects it (see docs/engines.md).
    c.kv_capacity_tokens = *slot_ctx * c.slots.value_or(1);
    c.source = "/props default_generation_settings.n_ctx x total_slots";
  }
  return c;
}

CapacityReading read_tgi(std::string_view info_json, std::string_view metrics_text) {
  CapacityReading c;
  json info = parse_json(info_json);
  c.max_model_len = int_field(info, "max_total_tokens");
  if (auto s = find_sample(parse_prometheus(metrics_text), "tgi_batch_max_total_tokens")) {
    c.kv_capacity_tokens = count_from_double(s->value);
    c.source = "/metrics tgi_batch_max_total_tokens";
  } else if (auto v = int_field(info, "max_batch_total_tokens")) {
    c.kv_capacity_tokens = v;
    c.source = "/info max_batch_total_tokens";
  }
  c.slots = int_field(info, "max_concurrent_requests");
  return c;
}

CapacityReading read_ollama_ps(std::string_view json_text, std::string_view model) {
  CapacityReading c;
  json j = parse_json(json_text);
  if (!j.is_object() || !j.contains("models") || !j["models"].is_array()) return c;
  for (const auto& m : j["models"]) {
    if (!model.empty() && str_field(m, "name") != model && str_field(m, "model") != model) continue;
    c.max_model_len = int_field(m, "context_length");
    break;
  }
  // KV = num_ctx x OLLAMA_NUM_PARALLEL, and no endpoint gives the product: capacity stays unknown.
  return c;
}

CapacityReading read_trtllm_metrics(std::string_view json_text) {
  CapacityReading c;
  json j = parse_json(json_text);
  const json* stats = nullptr;
  if (j.is_array() && !j.empty()) stats = &j.back();
  else if (j.is_object()) stats = &j;
  if (!stats || !stats->contains("kvCacheStats")) return c;
  const json& kv = (*stats)["kvCacheStats"];
  auto blocks = int_field(kv, "maxNumBlocks");
  auto per_block = int_field(kv, "tokensPerBlock");
  if (blocks && per_block) {
    c.kv_capacity_tokens = *blocks * *per_block;
    c.source = "/metrics kvCacheStats.maxNumBlocks x tokensPerBlock";
  }
  return c;
}

Result<ProbeResult> probe_server(const ProbeOptions& options, const HttpTransport& transport) {
  Getter g{options, transport};
  ProbeResult out;

  // /v1/models first: it proves the URL is an OpenAI-compatible server at all.
  HttpRequest models_req{join_url(options.base_url, "/v1/models"), "", options.headers};
  auto models_resp = transport(models_req);
  // Messages name the URL without its secrets (user:password@, ?api_key=...): they are printed.
  const std::string shown_url = redact_url(options.base_url);
  if (!models_resp) return fail(models_resp.error().code, fmt::format("cannot reach {}: {}", shown_url, redact_text(models_resp.error().message)));
  if (models_resp->status == 401 || models_resp->status == 403)
    return fail(ErrorCode::Http, fmt::format("{}/v1/models: HTTP {}: the server wants an API key (--api-key, "
                                             "SPEEDMATRIX_API_KEY or OPENAI_API_KEY, sent as Authorization: Bearer) "
                                             "or the header it expects (--header 'Name: value')",
                                             shown_url, models_resp->status));
  json models = parse_json(models_resp->body);
  if (models_resp->status != 200 || !models.is_object() || !models.contains("data") || !models["data"].is_array())
    return fail(ErrorCode::Protocol, fmt::format("{}/v1/models answered HTTP {} without a model list: not an "
                                                 "OpenAI-compatible server?",
                                                 shown_url, models_resp->status));
  const json* card = nullptr;
  for (const auto& m : models["data"]) {
    std::string id = str_field(m, "id");
    out.models.push_back(id);
    if (!card && (options.model.empty() || id == options.model)) card = &m;
  }
  if (!card) {
    if (out.models.empty()) return fail(ErrorCode::Protocol, "the server lists no models");
    return fail(ErrorCode::InvalidArgument,
                fmt::format("model '{}' is not served; the server has: {}", options.model, fmt::join(out.models, ", ")));
  }
  const std::string owned_by = str_field(*card, "owned_by");
  out.engine.model = str_field(*card, "id");
  out.engine.model_path = str_field(*card, "root");
  if (auto len = int_field(*card, "max_model_len")) out.engine.max_model_len = len;

  // Probe order of engines.md: Ollama, TGI, llama.cpp, SGLang, vLLM / TRT-LLM, LMDeploy.
  if (auto v = g.get_json("/api/version"); v && v->is_object() && v->size() == 1 && v->contains("version")) {
    out.kind = EngineKind::Ollama;
    out.engine.version = str_field(*v, "version");
    if (auto ps = g.get("/api/ps")) apply(read_ollama_ps(ps->body, out.engine.model), out);
    out.notes.push_back("Ollama: KV capacity is num_ctx x OLLAMA_NUM_PARALLEL, which no endpoint reports; give --kv-capacity");
  } else if (auto info = g.get_json("/info"); info && str_field(*info, "router") == "text-generation-router") {
    out.kind = EngineKind::Tgi;
    out.engine.version = str_field(*info, "version");
    out.engine.build = str_field(*info, "sha");
    out.engine.model_path = str_field(*info, "model_id");
    auto metrics = g.get("/metrics");
    apply(read_tgi(info->dump(), metrics ? metrics->body : ""), out);
  } else if (auto props = g.get_json("/props"); props && props->contains("build_info")) {
    out.kind = EngineKind::LlamaCpp;
    out.engine.build = str_field(*props, "build_info");
    out.engine.version = out.engine.build;
    out.engine.model_path = str_field(*props, "model_path");
    out.engine.quantization = str_field(*props, "model_ftype");
    apply(read_llamacpp_props(props->dump()), out);
    out.notes.push_back("llama.cpp: KV capacity assumes one window per slot (non-unified cache); a unified "
                        "cache holds only one slot's window: give --kv-capacity, or use --launch so the "
                        "server log tells");
    out.engine.prefix_caching = true;  // cache_prompt defaults to true
  } else if (auto si = g.get_json("/get_server_info"); si && si->contains("version")) {
    out.kind = EngineKind::Sglang;
    out.engine.version = str_field(*si, "version");
    apply(read_sglang_server_info(si->dump()), out);
    if (auto it = si->find("disable_radix_cache"); it != si->end() && it->is_boolean())
      out.engine.prefix_caching = !it->get<bool>();
  } else if (auto ver = g.get_json("/version"); ver && ver->contains("version") && owned_by != "lmdeploy") {
    out.kind = owned_by == "tensorrt_llm" ? EngineKind::TensorRtLlm : EngineKind::Vllm;
    out.engine.version = str_field(*ver, "version");
    if (auto metrics = g.get("/metrics")) {
      CapacityReading c = out.kind == EngineKind::Vllm ? read_vllm_metrics(metrics->body) : read_trtllm_metrics(metrics->body);
      apply(c, out);
      if (out.kind == EngineKind::Vllm) {
        for (const auto& s : parse_prometheus(metrics->body)) {
          if (s.name != "vllm:cache_config_info") continue;
          if (auto it = s.labels.find("enable_prefix_caching"); it != s.labels.end())
            out.engine.prefix_caching = it->second == "True" || it->second == "true";
          break;
        }
      }
    }
    if (out.engine.version.find("sim") != std::string::npos) out.simulated = true;
  } else if (owned_by == "lmdeploy") {
    out.kind = EngineKind::LmDeploy;
  } else {
    out.kind = EngineKind::OpenAi;
    out.notes.push_back("engine not recognised: treated as a generic OpenAI-compatible server");
  }
  out.engine.kind = std::string(to_string(out.kind));
  const EngineCapabilities caps = capabilities_of(out.kind);
  out.engine.forces_output_length = caps.forces_output_length;
  out.engine.tokenize_endpoint = out.kind == EngineKind::Vllm || out.kind == EngineKind::Sglang ||
                                 out.kind == EngineKind::LlamaCpp || out.kind == EngineKind::Tgi ||
                                 out.kind == EngineKind::LmDeploy;
  if (!out.engine.kv_capacity_tokens)
    out.notes.push_back("KV capacity unknown: every cell runs; give --kv-capacity to mark over-capacity cells");
  if (!caps.forces_output_length)
    out.notes.push_back(fmt::format("{} cannot ignore end-of-sequence: decode requests may end early and are flagged",
                                    to_string(out.kind)));
  return out;
}

std::optional<bool> llamacpp_kv_unified_from_log(std::string_view log) {
  size_t at = log.rfind("kv_unified = '");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = log.substr(at + 14);
  if (rest.starts_with("true")) return true;
  if (rest.starts_with("false")) return false;
  return std::nullopt;
}

HttpTransport default_transport(const ConnectionOptions& connection) {
  return [connection](const HttpRequest& req) { return http_fetch(req, FetchOptions{10, 5, 64u << 20, connection}); };
}

}  // namespace sm
