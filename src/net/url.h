#pragma once
// Base URLs that carry a query (a gateway's ?key=... or ?api-version=...): routes go before it;
// listen addresses of the servers speedmatrix runs (`serve`, `sim`).
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"

namespace sm {

/// `base` + `path`, the path inserted before any query or fragment of `base`:
/// join_url("http://h:8000?key=k", "/v1/models") == "http://h:8000/v1/models?key=k".
std::string join_url(std::string_view base, std::string_view path);

/// A server's base URL as `run --url` takes it: trailing '/' and a final "/v1" removed from the
/// part before any query ("http://h:8000/v1/?key=k" -> "http://h:8000?key=k").
std::string trim_base_url(std::string_view url);

/// Fails, naming `flag`, unless `url` is an http:// or https:// URL with a host (a bare
/// "host:8000" gets the "http://host:8000" it probably meant as a suggestion).
Result<void> check_http_url(std::string_view flag, std::string_view url);

/// Where a server listens: host (without brackets) and port.
struct ListenAddress {
  std::string host;
  uint16_t port = 0;
};

/// "HOST:PORT", "[v6]:PORT" or ":PORT" (loopback, 127.0.0.1). Fails naming --listen.
Result<ListenAddress> parse_listen_address(std::string_view text);

}  // namespace sm
