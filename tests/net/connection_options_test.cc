// ConnectionOptions as every request uses them: a local https server with a certificate made in
// the test (tests/support/tls_front), a gateway that wants a header, the messages that name the fix.
#include "net/connection_options.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "net/http_fetch.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"
#include "support/test_certificate.h"
#include "support/tls_front.h"

namespace sm {
namespace {

using test::ScriptedServer;
using test::TlsFront;

#define SKIP_WITHOUT_CERTIFICATE(cert)                                                      \
  if (!(cert)) GTEST_SKIP() << "the openssl command is not installed (scripts/setup installs it)"

TEST(ConnectionOptions, HeaderLinesAreCheckedAndTrimmed) {
  EXPECT_EQ(*parse_header_line("api-key:  abc123 "), "api-key: abc123");
  EXPECT_EQ(*parse_header_line("X-Title: my bench: run 1"), "X-Title: my bench: run 1");
  EXPECT_EQ(header_name("api-key: abc"), "api-key");
  EXPECT_EQ(header_value("api-key:   abc "), "abc");

  auto no_colon = parse_header_line("sk-secretvalue");
  ASSERT_FALSE(no_colon.has_value());
  EXPECT_NE(no_colon.error().message.find("expected 'Name: value'"), std::string::npos);
  EXPECT_EQ(no_colon.error().message.find("sk-secretvalue"), std::string::npos) << "a mistyped key is not echoed";
  EXPECT_FALSE(parse_header_line("api key: x").has_value());
  EXPECT_FALSE(parse_header_line("api-key:").has_value());
  EXPECT_FALSE(parse_header_line("X-A: b\r\nX-Injected: c").has_value());
  auto fixed = parse_header_line("Content-Length: 3");
  ASSERT_FALSE(fixed.has_value());
  EXPECT_NE(fixed.error().message.find("set by speedmatrix"), std::string::npos);
}

std::map<std::string, std::string> g_env;
const char* fake_getenv(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

TEST(ConnectionOptions, EnvironmentProxyIsReadAsLibcurlReadsIt) {
  g_env = {{"https_proxy", "http://p:3128"}, {"HTTP_PROXY", "http://cgi-injected:1"}};
  EXPECT_EQ(proxy_from_environment("https://api.example.com/v1", fake_getenv), "http://p:3128");
  EXPECT_EQ(proxy_from_environment("http://gpu-box:8000", fake_getenv), "") << "HTTP_PROXY (upper case) is ignored";
  g_env["http_proxy"] = "http://q:8080";
  EXPECT_EQ(proxy_from_environment("http://gpu-box:8000", fake_getenv), "http://q:8080");
  g_env["no_proxy"] = "localhost, .lab.example,10.0.0.7";
  EXPECT_EQ(proxy_from_environment("http://gpu1.lab.example:8000", fake_getenv), "");
  EXPECT_EQ(proxy_from_environment("http://lab.example:8000", fake_getenv), "");
  EXPECT_EQ(proxy_from_environment("http://10.0.0.7:8000", fake_getenv), "");
  EXPECT_EQ(proxy_from_environment("http://notlab.example:8000", fake_getenv), "http://q:8080");
  g_env = {{"ALL_PROXY", "socks5://s:1080"}, {"NO_PROXY", "*"}};
  EXPECT_EQ(proxy_from_environment("https://x", fake_getenv), "");
  g_env.erase("NO_PROXY");
  EXPECT_EQ(proxy_from_environment("https://x", fake_getenv), "socks5://s:1080");

  ConnectionOptions given;
  given.proxy = "http://given:1";
  EXPECT_EQ(effective_proxy("https://x", given), "http://given:1");
  given.proxy = "";
  EXPECT_EQ(effective_proxy("https://x", given), "") << "--proxy '' turns the environment's off";
}

TEST(ConnectionOptions, CertificateErrorNamesBothWaysOut) {
  const std::string text = transfer_error_text(CURLE_PEER_FAILED_VERIFICATION,
                                               "SSL certificate problem: self-signed certificate", "https://h", {});
  EXPECT_NE(text.find("self-signed certificate"), std::string::npos);
  EXPECT_NE(text.find("--cacert FILE"), std::string::npos) << text;
  EXPECT_NE(text.find("--insecure"), std::string::npos) << text;
  ConnectionOptions with_ca;
  with_ca.cacert_file = "other-ca.pem";
  const std::string checked = transfer_error_text(CURLE_PEER_FAILED_VERIFICATION, "x", "https://h", with_ca);
  EXPECT_NE(checked.find("--cacert other-ca.pem"), std::string::npos) << checked;
  EXPECT_NE(checked.find("--insecure"), std::string::npos) << checked;
}

TEST(ConnectionOptions, ProxyErrorNamesTheProxyWithoutItsPassword) {
  ConnectionOptions o;
  o.proxy = "http://alice:pw123@127.0.0.1:9";
  const std::string text = transfer_error_text(CURLE_COULDNT_CONNECT, "Failed to connect", "http://h:8000", o);
  EXPECT_NE(text.find("through the proxy http://127.0.0.1:9, from --proxy"), std::string::npos) << text;
  EXPECT_EQ(text.find("pw123"), std::string::npos) << text;
  o.proxy = "";
  EXPECT_EQ(transfer_error_text(CURLE_COULDNT_CONNECT, "Failed to connect", "http://h:8000", o), "Failed to connect");
}

class Https : public testing::Test {
 protected:
  void SetUp() override {
    cert_ = test::make_test_certificate(dir_.path().string());
    if (!cert_) return;
    front_ = std::make_unique<TlsFront>(*cert_, server_.port());
  }
  FetchOptions fetch(ConnectionOptions c) {
    FetchOptions o;
    o.timeout_s = 10;
    o.connection = std::move(c);
    return o;
  }
  test::TempDir dir_;
  std::optional<test::TestCertificate> cert_;
  ScriptedServer server_;
  std::unique_ptr<TlsFront> front_;
};

TEST_F(Https, AnUntrustedCertificateFailsAndSaysWhatToDo) {
  SKIP_WITHOUT_CERTIFICATE(cert_);
  auto r = http_fetch(HttpRequest{front_->url() + "/v1/models", "", {}}, fetch({}));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("certificate"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("--cacert FILE"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("--insecure"), std::string::npos) << r.error().message;
  EXPECT_TRUE(server_.all_requests().empty()) << "nothing reached the server";
}

TEST_F(Https, CacertAndInsecureBothReachTheServer) {
  SKIP_WITHOUT_CERTIFICATE(cert_);
  ConnectionOptions trusted;
  trusted.cacert_file = cert_->cert_file;
  auto r = http_fetch(HttpRequest{front_->url() + "/v1/models", "", {}}, fetch(trusted));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("scripted-model"), std::string::npos);

  ConnectionOptions insecure;
  insecure.insecure = true;
  auto unchecked = http_fetch(HttpRequest{front_->url() + "/v1/models", "", {}}, fetch(insecure));
  ASSERT_TRUE(unchecked.has_value()) << unchecked.error().message;
  EXPECT_EQ(unchecked->status, 200);
  EXPECT_EQ(server_.all_requests().size(), 2u);
  EXPECT_GE(front_->handshakes(), 2);
}

TEST_F(Https, ACertificateForAnotherCaIsStillRefused) {
  SKIP_WITHOUT_CERTIFICATE(cert_);
  auto other = test::make_test_certificate(dir_.path().string(), "other");
  ASSERT_TRUE(other.has_value());
  ConnectionOptions wrong;
  wrong.cacert_file = other->cert_file;
  auto r = http_fetch(HttpRequest{front_->url() + "/v1/models", "", {}}, fetch(wrong));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("--cacert " + other->cert_file), std::string::npos) << r.error().message;
}

TEST(ConnectionHeaders, EveryFetchCarriesThemAndTheGatewayLetsItIn) {
  test::ScriptedServerOptions opts;
  opts.required_headers = {{"api-key", "azure-key-123456"}};
  ScriptedServer server(opts);
  auto without = http_fetch(HttpRequest{server.url() + "/v1/models", "", {}});
  ASSERT_TRUE(without.has_value());
  EXPECT_EQ(without->status, 401);
  FetchOptions o;
  o.connection.headers = {"api-key: azure-key-123456", "X-Title: speedmatrix"};
  auto with = http_fetch(HttpRequest{server.url() + "/v1/models", "", {"Authorization: Bearer k"}}, o);
  ASSERT_TRUE(with.has_value());
  EXPECT_EQ(with->status, 200);
  const auto seen = server.all_requests().back();
  EXPECT_EQ(seen.headers.at("api-key"), "azure-key-123456");
  EXPECT_EQ(seen.headers.at("x-title"), "speedmatrix");
  EXPECT_EQ(seen.authorization, "Bearer k") << "the request's own headers stay";
}

}  // namespace
}  // namespace sm
