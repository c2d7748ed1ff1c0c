// measure_round_trip against the scripted server, plain and behind the TLS front.
#include "net/round_trip.h"

#include <gtest/gtest.h>

#include "support/scripted_server.h"
#include "support/temp_dir.h"
#include "support/test_certificate.h"
#include "support/tls_front.h"

namespace sm {
namespace {

using test::ScriptedServer;

TEST(RoundTrip, TimesEveryRequestButTheOneThatConnects) {
  ScriptedServer server;
  auto rt = measure_round_trip(HttpRequest{server.url() + "/v1/models", "", {}}, {}, 5);
  ASSERT_TRUE(rt.has_value()) << rt.error().message;
  EXPECT_EQ(rt->samples_ms.size(), 5u);
  EXPECT_EQ(server.all_requests().size(), 6u) << "one more to open the connection";
  EXPECT_EQ(rt->http_version, "1.1");
  EXPECT_EQ(rt->http_status, 200);
  for (double ms : rt->samples_ms) EXPECT_GE(ms, 0.0);
  std::vector<double> sorted = rt->samples_ms;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_DOUBLE_EQ(rt->median_ms, sorted[2]);
}

TEST(RoundTrip, ATransportErrorFailsWithTheFix) {
  test::TempDir dir;
  auto cert = test::make_test_certificate(dir.path().string());
  if (!cert) GTEST_SKIP() << "the openssl command is not installed (scripts/setup installs it)";
  ScriptedServer server;
  test::TlsFront front(*cert, server.port());
  auto untrusted = measure_round_trip(HttpRequest{front.url() + "/v1/models", "", {}}, {}, 3);
  ASSERT_FALSE(untrusted.has_value());
  EXPECT_NE(untrusted.error().message.find("--insecure"), std::string::npos) << untrusted.error().message;
  ConnectionOptions trusted;
  trusted.cacert_file = cert->cert_file;
  auto rt = measure_round_trip(HttpRequest{front.url() + "/v1/models", "", {}}, trusted, 3);
  ASSERT_TRUE(rt.has_value()) << rt.error().message;
  EXPECT_EQ(rt->samples_ms.size(), 3u);
  EXPECT_EQ(front.handshakes(), 1) << "one connection, kept open for every request";
}

}  // namespace
}  // namespace sm
