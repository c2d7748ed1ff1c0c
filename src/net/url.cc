#include "net/url.h"

#include <charconv>
#include <fmt/format.h>

namespace sm {

namespace {

// Where the query or fragment starts (after "scheme://"), or the end.
size_t query_start(std::string_view url) {
  const size_t scheme = url.find("://");
  const size_t from = scheme == std::string_view::npos ? 0 : scheme + 3;
  const size_t q = url.find_first_of("?#", from);
  return q == std::string_view::npos ? url.size() : q;
}

}  // namespace

std::string join_url(std::string_view base, std::string_view path) {
  const size_t q = query_start(base);
  std::string out(base.substr(0, q));
  out.append(path);
  out.append(base.substr(q));
  return out;
}

std::string trim_base_url(std::string_view url) {
  const size_t q = query_start(url);
  std::string head(url.substr(0, q));
  while (!head.empty() && head.back() == '/') head.pop_back();
  if (head.ends_with("/v1")) head.resize(head.size() - 3);
  return head + std::string(url.substr(q));
}

Result<void> check_http_url(std::string_view flag, std::string_view url) {
  const bool http = url.starts_with("http://"), https = url.starts_with("https://");
  if ((http || https) && url.size() > (https ? 8u : 7u) && url[https ? 8 : 7] != '/') return {};
  if (!http && !https && url.find("://") == std::string_view::npos && !url.empty())
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{} must be an http:// or https:// URL; did you mean http://{} ?", flag, url));
  return fail(ErrorCode::InvalidArgument,
              fmt::format("{} must be an http:// or https:// URL with a host, e.g. http://127.0.0.1:8000 (got '{}')",
                          flag, url));
}

Result<ListenAddress> parse_listen_address(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return fail(ErrorCode::InvalidArgument, "--listen must be HOST:PORT");
  std::string host(text.substr(0, colon));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "127.0.0.1";
  const std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto r = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (r.ec != std::errc{} || r.ptr != port_text.data() + port_text.size() || port > 65535)
    return fail(ErrorCode::InvalidArgument, fmt::format("--listen: '{}' is not a port", port_text));
  return ListenAddress{std::move(host), static_cast<uint16_t>(port)};
}

}  // namespace sm
