#include "net/connection_options.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fmt/format.h>

#include "core/text.h"

namespace sm {

namespace {

// RFC 9110 token characters: what a header name may hold.
bool is_token_char(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// "http://user:pw@proxy:3128" -> "http://proxy:3128": error messages never show proxy credentials.
std::string without_userinfo(std::string_view url) {
  const size_t scheme = url.find("://");
  const size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  const size_t end = url.find_first_of("/?#", start);
  const size_t at = url.substr(0, end).rfind('@');
  if (at == std::string_view::npos || at < start) return std::string(url);
  return std::string(url.substr(0, start)) + std::string(url.substr(at + 1));
}

// The host of a URL, lower case, without brackets or port.
std::string host_of(std::string_view url) {
  const size_t scheme = url.find("://");
  std::string_view rest = scheme == std::string_view::npos ? url : url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  if (rest.starts_with('[')) return ascii_lower(rest.substr(1, rest.find(']') - 1));
  return ascii_lower(rest.substr(0, rest.find(':')));
}

// no_proxy as libcurl reads it: "*" matches everything; otherwise a comma list of hosts and
// domains (a leading '.' is optional), each matching the host itself or any name under it.
bool no_proxy_matches(std::string_view no_proxy, const std::string& host) {
  size_t pos = 0;
  while (pos <= no_proxy.size()) {
    size_t comma = no_proxy.find(',', pos);
    if (comma == std::string_view::npos) comma = no_proxy.size();
    std::string entry = ascii_lower(trim_blanks(no_proxy.substr(pos, comma - pos)));
    pos = comma + 1;
    if (entry == "*") return true;
    if (entry.starts_with('.')) entry.erase(0, 1);
    if (entry.empty()) continue;
    if (host == entry) return true;
    if (host.size() > entry.size() && host.ends_with(entry) && host[host.size() - entry.size() - 1] == '.')
      return true;
  }
  return false;
}

}  // namespace

bool libcurl_reuses_cleartext_http2() { return curl_version_info(CURLVERSION_NOW)->version_num >= 0x080000; }

std::string libcurl_version() { return curl_version_info(CURLVERSION_NOW)->version; }

bool is_https_url(std::string_view url) { return ascii_lower(url.substr(0, 8)) == "https://"; }

void apply_connection_options(CURL* easy, std::string_view url, const ConnectionOptions& o) {
  if (o.http2) {
    // https: offered in the TLS handshake (ALPN), HTTP/1.1 when the server declines. http: no
    // handshake to offer it in, so HTTP/2 is spoken from the first byte ("prior knowledge").
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION,
                     static_cast<long>(is_https_url(url) ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE));
  } else {
    // libcurl's own default for https is HTTP/2 when offered; without --http2 every stream has
    // its own HTTP/1.1 connection, whatever the scheme.
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  }
  if (!o.cacert_file.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, o.cacert_file.c_str());
  if (o.insecure) {
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (o.proxy) curl_easy_setopt(easy, CURLOPT_PROXY, o.proxy->c_str());  // "": none, even from the environment
}

curl_slist* append_connection_headers(curl_slist* list, const ConnectionOptions& o) {
  for (const auto& h : o.headers) list = curl_slist_append(list, h.c_str());
  return list;
}

std::string transfer_error_text(int curl_code, std::string_view detail, std::string_view url,
                                const ConnectionOptions& o) {
  const auto code = static_cast<CURLcode>(curl_code);
  std::string text(detail);
  if (code == CURLE_PEER_FAILED_VERIFICATION) {
    if (o.cacert_file.empty())
      text += " (this machine does not trust the server's certificate: give the CA certificate that signed it "
              "with --cacert FILE, or skip the check with --insecure)";
    else
      text += fmt::format(" (the server's certificate was checked against --cacert {}: give the CA certificate "
                          "that signed it, or skip the check with --insecure)",
                          o.cacert_file);
    return text;
  }
  if (code == CURLE_SSL_CACERT_BADFILE)
    return text + fmt::format(" (--cacert {}: not a readable PEM certificate file)", o.cacert_file);
  const std::string proxy = effective_proxy(url, o);
  if (proxy.empty()) return text;
  const bool proxy_failure = code == CURLE_COULDNT_RESOLVE_PROXY || code == CURLE_PROXY ||
                             code == CURLE_COULDNT_CONNECT ||
                             text.find("CONNECT") != std::string::npos || ascii_lower(text).find("proxy") != std::string::npos;
  if (!proxy_failure) return text;
  const char* from = o.proxy ? "--proxy" : "the environment (https_proxy, http_proxy, all_proxy; no_proxy skips it)";
  return text + fmt::format(" (through the proxy {}, from {})", without_userinfo(proxy), from);
}

Result<std::string> parse_header_line(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos)
    return fail(ErrorCode::InvalidArgument, "--header: expected 'Name: value', found no ':'");
  const std::string_view name = trim_blanks(line.substr(0, colon));
  const std::string_view value = trim_blanks(line.substr(colon + 1));
  if (name.empty() || !std::all_of(name.begin(), name.end(), is_token_char))
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--header '{}': the name before ':' must be one word of letters, digits or -_.", name));
  if (value.empty())
    return fail(ErrorCode::InvalidArgument, fmt::format("--header '{}': no value after ':'", name));
  if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos)
    return fail(ErrorCode::InvalidArgument, fmt::format("--header '{}': the value holds a line break", name));
  const std::string lname = ascii_lower(name);
  if (lname == "content-length" || lname == "transfer-encoding")
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--header '{}': set by speedmatrix for each request, it cannot be given", name));
  return fmt::format("{}: {}", name, value);
}

std::string header_name(std::string_view line) { return std::string(trim_blanks(line.substr(0, line.find(':')))); }

std::string header_value(std::string_view line) {
  const size_t colon = line.find(':');
  return colon == std::string_view::npos ? std::string() : std::string(trim_blanks(line.substr(colon + 1)));
}

std::string proxy_from_environment(std::string_view url, const char* (*getenv_fn)(const char*)) {
  auto env = [&](const char* name) -> std::string {
    const char* v = getenv_fn ? getenv_fn(name) : std::getenv(name);
    return v ? std::string(v) : std::string();
  };
  const std::string host = host_of(url);
  std::string no_proxy = env("no_proxy");
  if (no_proxy.empty()) no_proxy = env("NO_PROXY");
  if (!no_proxy.empty() && no_proxy_matches(no_proxy, host)) return "";
  std::string proxy;
  if (is_https_url(url)) {
    proxy = env("https_proxy");
    if (proxy.empty()) proxy = env("HTTPS_PROXY");
  } else {
    proxy = env("http_proxy");  // libcurl ignores HTTP_PROXY (CGI sets it from a request header)
  }
  if (proxy.empty()) proxy = env("all_proxy");
  if (proxy.empty()) proxy = env("ALL_PROXY");
  return proxy;
}

std::string effective_proxy(std::string_view url, const ConnectionOptions& o) {
  if (o.proxy) return *o.proxy;
  return proxy_from_environment(url);
}

}  // namespace sm
