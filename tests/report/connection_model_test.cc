// The reports' Network section and connection findings, from RunResult::connection alone.
#include "report/connection_model.h"

#include <gtest/gtest.h>

#include "report/report.h"
#include "result/redact_result.h"
#include "result/result_json.h"

namespace sm::report {
namespace {

std::string fact(const FactGroup& g, const std::string& label) {
  for (const auto& f : g.facts)
    if (f.label == label) return f.value;
  return "(absent)";
}

RunResult with_connection(ConnectionInfo c) {
  RunResult r;
  r.connection = std::move(c);
  return r;
}

TEST(ConnectionModel, NoConnectionRecordedNoSection) {
  EXPECT_FALSE(connection_facts(RunResult{}).has_value());
  EXPECT_TRUE(connection_findings(RunResult{}).empty());
}

TEST(ConnectionModel, FactsSayHowTheServerWasReached) {
  ConnectionInfo c;
  c.tls = true;
  c.tls_verified = true;
  c.cacert = "lab-ca.pem";
  c.proxy = "http://proxy:3128";
  c.proxy_source = "environment";
  c.http_version = "1.1";
  c.headers = {"api-key: <redacted>", "X-Title: <redacted>"};
  c.rtt_ms = 0.092;
  c.rtt_requests = 5;
  auto g = connection_facts(with_connection(c));
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->id, "connection");
  EXPECT_TRUE(fact(*g, "Network round trip").starts_with("0.09 ms (median of 5 small requests")) << fact(*g, "Network round trip");
  EXPECT_EQ(fact(*g, "TLS"), "Certificate checked against lab-ca.pem (--cacert)");
  EXPECT_EQ(fact(*g, "HTTP"), "HTTP/1.1");
  EXPECT_EQ(fact(*g, "Proxy"), "http://proxy:3128 (from environment)");
  EXPECT_EQ(fact(*g, "Extra headers"), "api-key, X-Title (values not recorded)");
  c.rtt_ms = 42.4;
  EXPECT_TRUE(fact(*connection_facts(with_connection(c)), "Network round trip").starts_with("42 ms"));
  EXPECT_TRUE(connection_findings(with_connection(c)).empty()) << "nothing to warn about";
}

TEST(ConnectionModel, InsecureIsAWarningAndHttp2IsSaid) {
  ConnectionInfo c;
  c.tls = true;
  c.tls_verified = false;
  c.http2_requested = true;
  c.http_version = "1.1";
  auto findings = connection_findings(with_connection(c));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Severity::Warning);
  EXPECT_NE(findings[0].text.find("certificate was not checked (--insecure)"), std::string::npos);
  EXPECT_EQ(findings[1].severity, Severity::Info);
  EXPECT_NE(findings[1].text.find("answered with HTTP/1.1"), std::string::npos);
  EXPECT_EQ(fact(*connection_facts(with_connection(c)), "TLS"), "Certificate not checked (--insecure)");

  c.tls_verified = true;
  c.http_version = "2";
  findings = connection_findings(with_connection(c));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].text.find("multiplexed over HTTP/2"), std::string::npos);
  EXPECT_EQ(fact(*connection_facts(with_connection(c)), "HTTP"), "HTTP/2 (--http2)");
}

TEST(ConnectionModel, ResultJsonKeepsItAndRedactionKeepsOnlyHeaderNames) {
  RunResult r;
  ConnectionInfo c;
  c.tls = true;
  c.proxy = "http://bob:pw-91xq@proxy:3128";
  c.headers = {"api-key: azure-secret-value", "X-Title: <redacted>"};
  c.rtt_ms = 1.5;
  c.rtt_requests = 5;
  r.connection = c;
  r.warnings = {"the gateway said: bad key azure-secret-value"};
  RedactOptions o;
  o.secrets = {"azure-secret-value"};
  RunResult clean = redacted(r, o);
  EXPECT_EQ(clean.connection->headers, (std::vector<std::string>{"api-key: <redacted>", "X-Title: <redacted>"}));
  EXPECT_EQ(clean.connection->proxy.find("pw-91xq"), std::string::npos) << clean.connection->proxy;
  EXPECT_EQ(clean.warnings[0], "the gateway said: bad key <redacted>");
  auto back = result_from_json(to_json(clean));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  ASSERT_TRUE(back->connection.has_value());
  EXPECT_EQ(back->connection->headers, clean.connection->headers);
  EXPECT_EQ(*back->connection->rtt_ms, 1.5);
  EXPECT_EQ(back->connection->rtt_requests, 5);
  EXPECT_TRUE(back->connection->tls);
  RunResult old;
  EXPECT_FALSE(result_from_json(to_json(old))->connection.has_value()) << "older files have none";
}

}  // namespace
}  // namespace sm::report
