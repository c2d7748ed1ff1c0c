#pragma once
// How the client reaches a server that is not a plain local http:// one: TLS trust, extra
// headers, a proxy, HTTP/2. One value, threaded from the CLI to every request a command makes
// (probe, tokenize, calibration, streams, load reads, aborts, upload), so no request path can
// forget an option.
//
//   ConnectionOptions c;
//   c.cacert_file = "lab-ca.pem";             // --cacert
//   c.headers = {"api-key: ..."};             // --header, repeatable
//   c.proxy_url = "http://proxy:3128";        // --proxy (unset: https_proxy/http_proxy/no_proxy)
//   apply_connection_options(easy, url, c);   // on every libcurl easy handle
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <curl/curl.h>

#include "core/error.h"

namespace sm {

struct ConnectionOptions {
  std::string cacert_file;           ///< --cacert: PEM file of CAs the server's certificate is checked against
                                     ///< (instead of the system's); empty = system CAs
  bool insecure = false;             ///< --insecure: the server's certificate and name are not checked
  std::optional<std::string> proxy;  ///< --proxy URL; "" = no proxy at all; unset = libcurl reads
                                     ///< https_proxy / http_proxy / all_proxy / no_proxy
  bool http2 = false;                ///< --http2: HTTP/2 (ALPN on https, prior knowledge on http);
                                     ///< off: HTTP/1.1, one connection per stream
  std::vector<std::string> headers;  ///< --header: "Name: value" lines sent on every request
};

/// Sets TLS, proxy and HTTP version options of `easy` for a request to `url`. Headers are not
/// touched: see append_connection_headers.
void apply_connection_options(CURL* easy, std::string_view url, const ConnectionOptions& options);

/// Appends options.headers to a libcurl header list; returns the new head.
curl_slist* append_connection_headers(curl_slist* list, const ConnectionOptions& options);

/// The message of a failed transfer: libcurl's `detail`, plus what to do about it when the
/// options can fix it — an untrusted certificate names --cacert and --insecure, a proxy failure
/// names the proxy that was used and --proxy.
std::string transfer_error_text(int curl_code, std::string_view detail, std::string_view url,
                                const ConnectionOptions& options);

/// Checks one --header value: "Name: value", a token name, no line breaks. Returns it trimmed.
Result<std::string> parse_header_line(std::string_view line);

/// The name part of a "Name: value" line ("api-key" of "api-key: abc").
std::string header_name(std::string_view line);

/// The value part of a "Name: value" line, without surrounding spaces.
std::string header_value(std::string_view line);

/// The proxy libcurl uses for `url` when no --proxy is given, read as libcurl reads the
/// environment: http_proxy (lower case only) for http://, https_proxy or HTTPS_PROXY for https://,
/// then all_proxy / ALL_PROXY; empty when none is set or no_proxy / NO_PROXY names the host
/// ("*", the host, or a domain it is in). `getenv` is injectable for tests.
std::string proxy_from_environment(std::string_view url, const char* (*getenv)(const char*) = nullptr);

/// The proxy a request to `url` goes through with these options: --proxy, else the
/// environment's; empty = direct.
std::string effective_proxy(std::string_view url, const ConnectionOptions& options);

/// Whether this process's libcurl can send a second request on an HTTP/2 connection over plain
/// http (prior knowledge). libcurl before 8.0.0 cannot: the reused connection fails with "Error in
/// the HTTP/2 framing layer" (curl issue #10634, fixed in 8.0.0); Debian 12 has 7.88.1. HTTP/2
/// over https (ALPN) is not affected.
bool libcurl_reuses_cleartext_http2();

/// "7.88.1": the libcurl this process runs with.
std::string libcurl_version();

/// True for an https:// URL (case-insensitive scheme).
bool is_https_url(std::string_view url);

}  // namespace sm
