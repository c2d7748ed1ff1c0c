#include "bench/connection_record.h"

#include "net/url.h"
#include "result/redact.h"

namespace sm {

ConnectionInfo connection_record(std::string_view base_url, const ConnectionOptions& connection, bool http2_requested,
                                 const std::optional<RoundTrip>& round_trip) {
  ConnectionInfo c;
  c.tls = is_https_url(base_url);
  c.tls_verified = c.tls && !connection.insecure;
  if (c.tls) c.cacert = connection.cacert_file;
  c.proxy = effective_proxy(base_url, connection);
  if (!c.proxy.empty()) c.proxy_source = connection.proxy ? "--proxy" : "environment";
  c.http2_requested = http2_requested;
  for (const auto& h : connection.headers) c.headers.push_back(header_name(h) + ": " + std::string(kRedacted));
  if (round_trip) {
    c.http_version = round_trip->http_version;
    if (!round_trip->samples_ms.empty()) c.rtt_ms = round_trip->median_ms;
    c.rtt_requests = static_cast<int64_t>(round_trip->samples_ms.size());
  }
  return c;
}

}  // namespace sm
