#include "report/connection_model.h"

#include <fmt/format.h>

#include "report/translate.h"

namespace sm::report {

namespace {

// Loopback round trips are tenths of a millisecond: two decimals below 1 ms.
std::string format_rtt_ms(double ms) {
  if (ms < 1) return fmt::format("{:.2f} ms", ms);
  if (ms < 10) return fmt::format("{:.1f} ms", ms);
  return fmt::format("{:.0f} ms", ms);
}

std::string tls_text(const ConnectionInfo& c) {
  if (!c.tls) return tr("None (http)");
  if (!c.tls_verified) return tr("Certificate not checked (--insecure)");
  if (!c.cacert.empty()) return trf("Certificate checked against {} (--cacert)", c.cacert);
  return tr("Certificate checked against this machine's CAs");
}

}  // namespace

std::optional<FactGroup> connection_facts(const RunResult& r) {
  if (!r.connection) return std::nullopt;
  const ConnectionInfo& c = *r.connection;
  FactGroup g{"connection", tr("Network"), {}};  // "Network": fits the terminal's 10-column titles
  if (c.rtt_ms)
    g.facts.push_back({tr("Network round trip"),
                       trf("{} (median of {} small requests on an open connection, before the first cell; part of "
                           "every TTFT)",
                           format_rtt_ms(*c.rtt_ms), c.rtt_requests)});
  g.facts.push_back({tr("TLS"), tls_text(c)});
  if (!c.http_version.empty())
    g.facts.push_back({"HTTP", "HTTP/" + c.http_version + (c.http2_requested ? " (--http2)" : "")});
  g.facts.push_back({tr("Proxy"), c.proxy.empty() ? tr("None") : c.proxy + trf(" (from {})", c.proxy_source)});
  if (!c.headers.empty()) {
    std::string names;
    for (const auto& h : c.headers) names += (names.empty() ? "" : ", ") + h.substr(0, h.find(':'));
    g.facts.push_back({tr("Extra headers"), trf("{} (values not recorded)", names)});
  }
  return g;
}

std::vector<Finding> connection_findings(const RunResult& r) {
  std::vector<Finding> out;
  if (!r.connection) return out;
  const ConnectionInfo& c = *r.connection;
  if (c.tls && !c.tls_verified)
    out.push_back({Severity::Warning,
                   tr("The server's TLS certificate was not checked (--insecure): this run cannot show it measured "
                      "the server it names, and anyone on the network path could have read or changed its traffic.")});
  if (c.http_version == "2")
    out.push_back({Severity::Info,
                   tr("The streams were multiplexed over HTTP/2 (--http2): on the self-test's machine that added about "
                      "0.2 ms (64 streams) to 2–4 ms (1,024 streams) between a chunk's send and its stamp "
                      "(docs/performance.md), so the latencies of busy cells include some of the client's own.")});
  if (c.http2_requested && !c.http_version.empty() && c.http_version != "2")
    out.push_back({Severity::Info, trf("--http2 was asked for, but the server answered with HTTP/{}: every stream had "
                                       "its own connection.",
                                       c.http_version)});
  return out;
}

}  // namespace sm::report
