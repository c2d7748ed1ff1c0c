// `run` against servers as remote users have them: https with the lab's own certificate, a
// gateway that wants its own header, a forwarding proxy. Each: the clear error for the wrong
// setting, and a valid run for the right one.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench/runner.h"
#include "result/result_json.h"
#include "site/json_schema.h"
#include "site/site_data.h"
#include "support/forward_proxy.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"
#include "support/test_certificate.h"
#include "support/tls_front.h"

namespace sm {
namespace {

namespace fs = std::filesystem;
using test::ScriptedServer;

RunConfig one_cell(const std::string& url, const std::string& out_dir) {
  RunConfig c;
  c.target.base_url = url;
  c.matrix.contexts = {0};
  c.contexts_given = true;
  c.matrix.concurrency = {2};
  c.matrix.prefill_contexts = {256};
  c.matrix.max_output_tokens = 16;
  c.matrix.duration_s = 0.2;
  c.out_dir = out_dir;
  c.quiet = true;
  c.client_selftest = false;  // the test binary has no streamer subcommand
  c.json_output = true;
  return c;
}

struct RunOutput {
  int code = -1;
  std::string err;
};

RunOutput run_captured(const RunConfig& config) {
  RunOutput r;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  r.code = run_matrix(config);
  testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

RunResult read_result(const test::TempDir& dir, const std::string& run) {
  auto r = read_result_file(dir.file(run + "/result.json"));
  EXPECT_TRUE(r.has_value()) << r.error().message;
  return r ? *r : RunResult{};
}

void expect_all_valid(const RunResult& r) {
  ASSERT_FALSE(r.decode.empty());
  for (const auto& row : r.prefill) EXPECT_EQ(row.status, CellStatus::Valid) << row.error;
  for (const auto& cell : r.decode) EXPECT_EQ(cell.status, CellStatus::Valid) << cell.error;
}

void expect_schema_valid(const std::string& path) {
  auto schema = site::JsonSchema::parse(*site::site_data_file("result-schema.json"));
  ASSERT_TRUE(schema.has_value());
  std::ifstream in(path);
  auto ok = schema->validate(nlohmann::json::parse(in));
  EXPECT_TRUE(ok.has_value()) << ok.error().message;
}

#define SKIP_WITHOUT_CERTIFICATE(cert)                                                      \
  if (!(cert)) GTEST_SKIP() << "the openssl command is not installed (scripts/setup installs it)"

TEST(RunnerRemote, HttpsWithItsOwnCertificateNeedsCacert) {
  test::TempDir dir;
  auto cert = test::make_test_certificate(dir.path().string());
  SKIP_WITHOUT_CERTIFICATE(cert);
  ScriptedServer server;
  test::TlsFront front(*cert, server.port());

  RunOutput refused = run_captured(one_cell(front.url(), dir.file("refused")));
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("certificate"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--cacert FILE"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--insecure"), std::string::npos) << refused.err;
  EXPECT_TRUE(server.all_requests().empty());

  RunConfig c = one_cell(front.url(), dir.file("run"));
  c.target.connection.cacert_file = cert->cert_file;
  RunOutput ok = run_captured(c);
  ASSERT_EQ(ok.code, 0) << ok.err;
  RunResult r = read_result(dir, "run");
  expect_all_valid(r);
  ASSERT_TRUE(r.connection.has_value());
  EXPECT_TRUE(r.connection->tls);
  EXPECT_TRUE(r.connection->tls_verified);
  EXPECT_EQ(r.connection->cacert, cert->cert_file);
  EXPECT_EQ(r.connection->http_version, "1.1");
  EXPECT_TRUE(r.connection->proxy.empty());
  ASSERT_TRUE(r.connection->rtt_ms.has_value());
  EXPECT_GE(*r.connection->rtt_ms, 0.0);
  EXPECT_EQ(r.connection->rtt_requests, 5);
  // Every completion went over TLS: the front is the only way to the server.
  EXPECT_GE(front.handshakes(), 2);
  expect_schema_valid(dir.file("run/result.json"));
  const std::string md = test::read_file(dir.file("run/report.md"));
  EXPECT_NE(md.find("Network round trip"), std::string::npos) << md;
  EXPECT_EQ(md.find("not checked"), std::string::npos);
}

TEST(RunnerRemote, InsecureRunSaysLoudlyThatTheCertificateWasNotChecked) {
  test::TempDir dir;
  auto cert = test::make_test_certificate(dir.path().string());
  SKIP_WITHOUT_CERTIFICATE(cert);
  ScriptedServer server;
  test::TlsFront front(*cert, server.port());
  RunConfig c = one_cell(front.url(), dir.file("run"));
  c.target.connection.insecure = true;
  RunOutput ok = run_captured(c);
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.err.find("--insecure"), std::string::npos) << "said when the run starts:\n" << ok.err;
  RunResult r = read_result(dir, "run");
  expect_all_valid(r);
  ASSERT_TRUE(r.connection.has_value());
  EXPECT_TRUE(r.connection->tls);
  EXPECT_FALSE(r.connection->tls_verified);
  for (const char* report : {"run/report.md", "run/report.html"}) {
    const std::string text = test::read_file(dir.file(report));
    EXPECT_NE(text.find("certificate was not checked (--insecure)"), std::string::npos) << report;
  }
}

TEST(RunnerRemote, GatewayHeaderReachesEveryRequestAndItsValueIsNeverWritten) {
  const std::string key = "azure-7Hq2Lm9Xv4";
  test::ScriptedServerOptions opts;
  opts.required_headers = {{"api-key", key}};
  ScriptedServer server(opts);
  test::TempDir dir;

  RunOutput refused = run_captured(one_cell(server.url(), dir.file("refused")));
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("HTTP 401"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--header 'Name: value'"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--api-key"), std::string::npos) << refused.err;

  RunConfig c = one_cell(server.url(), dir.file("run"));
  c.target.connection.headers = {"api-key: " + key};
  const size_t before = server.all_requests().size();
  RunOutput ok = run_captured(c);
  ASSERT_EQ(ok.code, 0) << ok.err;
  RunResult r = read_result(dir, "run");
  expect_all_valid(r);
  // Probe, round trip, tokenize, calibration, warm-up, streams, load reads: every one carried it.
  const auto all = server.all_requests();
  std::set<std::string> paths;
  for (size_t i = before; i < all.size(); ++i) {
    paths.insert(all[i].path);
    auto it = all[i].headers.find("api-key");
    ASSERT_NE(it, all[i].headers.end()) << all[i].path;
    EXPECT_EQ(it->second, key);
  }
  for (const char* path : {"/v1/models", "/tokenize", "/v1/completions", "/metrics"})
    EXPECT_TRUE(paths.contains(path)) << path;
  ASSERT_TRUE(r.connection.has_value());
  EXPECT_EQ(r.connection->headers, std::vector<std::string>{"api-key: <redacted>"});
  expect_schema_valid(dir.file("run/result.json"));
  for (const auto& entry : fs::directory_iterator(dir.file("run"))) {
    const std::string text = test::read_file(entry.path());
    EXPECT_EQ(text.find(key), std::string::npos) << entry.path().filename() << " holds the header's value";
  }
  EXPECT_NE(test::read_file(dir.file("run/report.md")).find("api-key"), std::string::npos)
      << "the report names the header";
}

TEST(RunnerRemote, ThroughAForwardingProxyGivenWithProxy) {
  ScriptedServer server;
  test::ForwardProxy proxy;
  test::TempDir dir;

  RunConfig missing = one_cell(server.url(), dir.file("refused"));
  missing.target.connection.proxy = "http://127.0.0.1:1";  // nothing listens there
  RunOutput refused = run_captured(missing);
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("through the proxy http://127.0.0.1:1, from --proxy"), std::string::npos) << refused.err;
  EXPECT_TRUE(server.all_requests().empty());

  RunConfig c = one_cell(server.url(), dir.file("run"));
  c.target.connection.proxy = proxy.url();
  RunOutput ok = run_captured(c);
  ASSERT_EQ(ok.code, 0) << ok.err;
  RunResult r = read_result(dir, "run");
  expect_all_valid(r);
  std::set<std::string> via_proxy;
  for (const auto& line : proxy.requests()) via_proxy.insert(line);
  for (const char* request : {"GET {}/v1/models", "POST {}/tokenize", "POST {}/v1/completions", "GET {}/metrics"}) {
    std::string expected = request;
    expected.replace(expected.find("{}"), 2, server.url());
    EXPECT_TRUE(via_proxy.contains(expected)) << expected;
  }
  // Everything the server saw came through the proxy.
  size_t completions_seen = 0, completions_proxied = 0;
  for (const auto& req : server.all_requests()) completions_seen += req.path == "/v1/completions";
  for (const auto& line : proxy.requests()) completions_proxied += line.ends_with("/v1/completions");
  EXPECT_EQ(completions_seen, completions_proxied);
  ASSERT_TRUE(r.connection.has_value());
  EXPECT_EQ(r.connection->proxy, proxy.url());
  EXPECT_EQ(r.connection->proxy_source, "--proxy");
}

TEST(RunnerRemote, HttpsProxyFromTheEnvironmentTunnelsAndNoProxySkipsIt) {
  test::TempDir dir;
  auto cert = test::make_test_certificate(dir.path().string());
  SKIP_WITHOUT_CERTIFICATE(cert);
  ScriptedServer server;
  test::TlsFront front(*cert, server.port());
  test::ForwardProxy proxy;
  // Each test runs in its own process (gtest_discover_tests): the environment is this test's.
  ::setenv("https_proxy", proxy.url().c_str(), 1);
  RunConfig c = one_cell(front.url(), dir.file("run"));
  c.target.connection.cacert_file = cert->cert_file;
  RunOutput ok = run_captured(c);
  ASSERT_EQ(ok.code, 0) << ok.err;
  expect_all_valid(read_result(dir, "run"));
  const std::string tunnel = "CONNECT 127.0.0.1:" + std::to_string(front.port());
  const auto seen = proxy.requests();
  ASSERT_FALSE(seen.empty());
  for (const auto& line : seen) EXPECT_EQ(line, tunnel);
  RunResult r = read_result(dir, "run");
  ASSERT_TRUE(r.connection.has_value());
  EXPECT_EQ(r.connection->proxy, proxy.url());
  EXPECT_EQ(r.connection->proxy_source, "environment");

  ::setenv("no_proxy", "127.0.0.1", 1);
  RunConfig direct = one_cell(front.url(), dir.file("direct"));
  direct.target.connection.cacert_file = cert->cert_file;
  ASSERT_EQ(run_captured(direct).code, 0);
  EXPECT_EQ(proxy.requests().size(), seen.size()) << "no_proxy: nothing more through the proxy";
  EXPECT_TRUE(read_result(dir, "direct").connection->proxy.empty());
  ::unsetenv("https_proxy");
  ::unsetenv("no_proxy");
}

TEST(RunnerRemote, Http2FallsBackCleanlyToAServerThatSpeaksOnlyHttp11) {
  test::TempDir dir;
  ScriptedServer server;  // HTTP/1.1 only, on plain http

  RunConfig plain = one_cell(server.url(), dir.file("plain"));
  plain.target.connection.http2 = true;
  RunOutput plain_run = run_captured(plain);
  ASSERT_EQ(plain_run.code, 0) << plain_run.err;
  EXPECT_NE(plain_run.err.find("--http2"), std::string::npos) << plain_run.err;
  EXPECT_NE(plain_run.err.find("the run uses HTTP/1.1"), std::string::npos) << plain_run.err;
  RunResult r = read_result(dir, "plain");
  expect_all_valid(r);
  ASSERT_TRUE(r.connection.has_value());
  EXPECT_TRUE(r.connection->http2_requested);
  EXPECT_EQ(r.connection->http_version, "1.1");

  auto cert = test::make_test_certificate(dir.path().string());
  SKIP_WITHOUT_CERTIFICATE(cert);
  test::TlsFront front(*cert, server.port());  // https that does not offer h2 in its handshake
  RunConfig tls = one_cell(front.url(), dir.file("tls"));
  tls.target.connection.http2 = true;
  tls.target.connection.cacert_file = cert->cert_file;
  RunOutput tls_run = run_captured(tls);
  ASSERT_EQ(tls_run.code, 0) << tls_run.err;
  EXPECT_NE(tls_run.err.find("--http2: the server answered with HTTP/1.1"), std::string::npos) << tls_run.err;
  RunResult t = read_result(dir, "tls");
  expect_all_valid(t);
  EXPECT_EQ(t.connection->http_version, "1.1");
  EXPECT_NE(test::read_file(dir.file("tls/report.md")).find("--http2 was asked for, but the server answered with HTTP/1.1"),
            std::string::npos);
}

}  // namespace
}  // namespace sm
