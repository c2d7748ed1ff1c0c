#pragma once
// Blocking one-shot HTTP for everything that is not a measured stream: probing the engine,
// tokenizing, scraping /metrics. Never used on the measurement path.
#include <string>

#include "core/error.h"
#include "net/connection_options.h"
#include "net/stream_client.h"

namespace sm {

struct HttpResponse {
  long status = 0;            ///< HTTP status code
  std::string body;           ///< whole body (bounded by FetchOptions::max_body_bytes)
  std::string content_type;   ///< Content-Type header, empty when absent
};

struct FetchOptions {
  double timeout_s = 30;                  ///< whole-request limit
  double connect_timeout_s = 10;          ///< connect limit
  size_t max_body_bytes = 64u << 20;      ///< larger bodies fail with a Protocol error
  ConnectionOptions connection;           ///< TLS, proxy, HTTP version, extra headers (--cacert, ...)
};

/// Performs the request. Transport failures are errors; any HTTP status is a response.
Result<HttpResponse> http_fetch(const HttpRequest& request, const FetchOptions& options = {});

}  // namespace sm
