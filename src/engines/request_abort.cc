#include "engines/request_abort.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "net/url.h"

namespace sm {

bool aborts_by_request_id(EngineKind kind) { return kind == EngineKind::Sglang; }

Result<void> abort_request(EngineKind kind, const std::string& base_url, const std::vector<std::string>& headers,
                           const std::string& id, const HttpTransport& transport) {
  if (!aborts_by_request_id(kind))
    return fail(ErrorCode::Unsupported, fmt::format("{} has no abort-by-id route", to_string(kind)));
  // sgl-project/sglang: python/sglang/srt/entrypoints/http_server.py, POST /abort_request (AbortReq).
  const std::string url = join_url(base_url, "/abort_request");
  auto r = transport(HttpRequest{url, nlohmann::json{{"rid", id}}.dump(), headers});
  if (!r) return std::unexpected(r.error());
  if (r->status < 200 || r->status >= 300)
    return fail(ErrorCode::Http, fmt::format("POST {}: HTTP {}: {}", url, r->status, r->body.substr(0, 200)));
  return {};
}

}  // namespace sm
