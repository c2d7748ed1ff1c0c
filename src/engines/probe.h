#pragma once
// Detects which engine serves a URL and reads what limits the matrix: model, context length,
// KV capacity, slots. Only cheap GETs with no side effects (never SGLang's /health).
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "engines/engine_kind.h"
#include "net/http_fetch.h"
#include "result/result.h"

namespace sm {

/// How the prober reaches the server: http_fetch in production, fixtures in tests.
using HttpTransport = std::function<Result<HttpResponse>(const HttpRequest&)>;

/// Everything the probe learned.
struct ProbeResult {
  EngineKind kind = EngineKind::OpenAi;
  EngineInfo engine;                ///< filled as far as the server tells
  std::vector<std::string> models;  ///< ids from /v1/models
  bool simulated = false;           ///< the server is speedmatrix's simulated engine
  std::vector<std::string> notes;   ///< what could not be read and why
};

struct ProbeOptions {
  std::string base_url;               ///< no trailing slash, no /v1
  std::vector<std::string> headers;   ///< e.g. "Authorization: Bearer …"
  std::string model;                  ///< the model to describe; empty = the first listed
};

/// Detects the engine (probe order of engines.md) and reads its limits.
Result<ProbeResult> probe_server(const ProbeOptions& options, const HttpTransport& transport);

/// The production transport (http_fetch, 10 s timeout) with the run's TLS, proxy and headers.
HttpTransport default_transport(const ConnectionOptions& connection = {});

// Per-engine readers of one response body; exposed for fixture tests.
struct CapacityReading {
  std::optional<int64_t> kv_capacity_tokens;
  std::optional<int64_t> max_model_len;
  std::optional<int64_t> slots;
  std::string source;  ///< where the capacity came from
};
CapacityReading read_vllm_metrics(std::string_view metrics_text);
CapacityReading read_sglang_server_info(std::string_view json_text);
CapacityReading read_llamacpp_props(std::string_view json_text);
CapacityReading read_tgi(std::string_view info_json, std::string_view metrics_text);
CapacityReading read_ollama_ps(std::string_view json_text, std::string_view model);
CapacityReading read_trtllm_metrics(std::string_view json_text);

/// llama-server's start-up log line "n_ctx_slot = 4096, kv_unified = 'false'": whether its KV
/// cache is unified (one pool shared by every slot), when the log says.
std::optional<bool> llamacpp_kv_unified_from_log(std::string_view log);

}  // namespace sm
