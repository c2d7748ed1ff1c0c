#pragma once
// The results site's view of an HTTP exchange, independent of the socket code: the server
// (site_server.cc) fills a SiteRequest and writes the SiteResponse; tests call Site::handle
// directly.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/store_types.h"

namespace sm::site {

enum class HttpMethod { Get, Head, Post, Options, Other };

struct SiteRequest {
  HttpMethod method = HttpMethod::Get;
  std::string path;            ///< percent-decoded path without the query, e.g. "/runs/abc"
  std::string query;           ///< raw query string after '?', not decoded
  std::string authorization;   ///< Authorization header value
  std::string content_type;    ///< Content-Type header value
  std::string host;            ///< Host header value (untrusted: escaped wherever shown)
  std::string cookie;          ///< Cookie header value (the page language: sm_lang)
  std::string accept_language; ///< Accept-Language header value
  std::string client;          ///< peer address, the key of per-client rate limits
  std::string body;            ///< request body (bounded by the server)
  std::optional<store::TokenInfo> token;  ///< set by the server when it authorised an upload already
  std::string request_id;      ///< names the request in the log and the X-Request-Id header; made by the site when empty
};

struct SiteResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  ///< extra headers, e.g. Retry-After
  std::string log_reason;      ///< why it failed, for the log line only (never sent: it may hold store errors)
  bool body_is_public = false; ///< a 5xx whose body names nothing internal (the busy answer): sent as is
};

/// "Created", "Not Found", ... for a status code.
std::string_view reason_phrase(int status);

}  // namespace sm::site
