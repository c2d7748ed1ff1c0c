// Behind a load balancer (`serve --trusted-proxy`): the client is the address X-Forwarded-For
// names, believed only from a trusted proxy; the calculator's per-client rate limit follows it.
#include "site/trusted_proxies.h"

#include <gtest/gtest.h>

#include "net/http_fetch.h"
#include "site/site.h"
#include "site/site_server.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

TrustedProxies proxies(const std::vector<std::string>& entries) {
  auto p = TrustedProxies::parse(entries);
  EXPECT_TRUE(p) << p.error().message;
  return p ? *p : TrustedProxies{};
}

TEST(TrustedProxies, AddressesAndBlocksOfBothFamilies) {
  const TrustedProxies p = proxies({"10.0.0.0/8", "192.168.1.7", "fd00::/8", "::1", "172.16.0.0/12"});
  EXPECT_TRUE(p.trusts("10.200.3.4"));
  EXPECT_FALSE(p.trusts("11.0.0.1"));
  EXPECT_TRUE(p.trusts("192.168.1.7"));
  EXPECT_FALSE(p.trusts("192.168.1.8"));
  EXPECT_TRUE(p.trusts("172.31.255.255"));  // /12 ends inside the second byte
  EXPECT_FALSE(p.trusts("172.32.0.1"));
  EXPECT_TRUE(p.trusts("fd12:3456::1"));
  EXPECT_FALSE(p.trusts("fe80::1"));
  EXPECT_TRUE(p.trusts("::1"));
  EXPECT_TRUE(p.trusts("::ffff:10.1.2.3"));  // an IPv4-mapped peer of a dual-stack socket
  EXPECT_FALSE(p.trusts("not an address"));
  EXPECT_TRUE(proxies({"0.0.0.0/0"}).trusts("203.0.113.9"));
}

TEST(TrustedProxies, BadEntriesAreRefusedByName) {
  for (const char* bad : {"10.0.0.0/33", "10.0.0.0/", "10.0.0/8", "::1/129", "proxy.example", "10.0.0.0/8x", ""}) {
    auto p = TrustedProxies::parse({bad});
    ASSERT_FALSE(p) << bad;
    EXPECT_NE(p.error().message.find(std::string("'") + bad + "'"), std::string::npos) << p.error().message;
  }
}

TEST(TrustedProxies, TheClientIsTheNearestUntrustedHop) {
  const TrustedProxies p = proxies({"10.0.0.0/8"});
  // Not from a trusted proxy: the header is whatever the sender wrote, ignored.
  EXPECT_EQ(p.client_of("203.0.113.5", "198.51.100.1"), "203.0.113.5");
  // From the balancer: the client it saw.
  EXPECT_EQ(p.client_of("10.0.0.7", "203.0.113.5"), "203.0.113.5");
  // A client that writes its own header cannot hide behind it: the balancer appends the address
  // it saw, and the walk stops at the first hop that is not a trusted proxy.
  EXPECT_EQ(p.client_of("10.0.0.7", "1.2.3.4, 203.0.113.5"), "203.0.113.5");
  // Two proxies of ours in a row.
  EXPECT_EQ(p.client_of("10.0.0.7", "203.0.113.5, 10.0.0.3"), "203.0.113.5");
  // Ports and brackets some proxies add.
  EXPECT_EQ(p.client_of("10.0.0.7", "203.0.113.5:5123"), "203.0.113.5");
  EXPECT_EQ(p.client_of("10.0.0.7", "[2001:db8::1]:443"), "2001:db8::1");
  EXPECT_EQ(p.client_of("10.0.0.7", "2001:db8::2"), "2001:db8::2");
  // No header, only our proxies, or garbage: the last trusted hop read.
  EXPECT_EQ(p.client_of("10.0.0.7", ""), "10.0.0.7");
  EXPECT_EQ(p.client_of("10.0.0.7", "10.0.0.2, 10.0.0.3"), "10.0.0.2");
  EXPECT_EQ(p.client_of("10.0.0.7", "203.0.113.5, unknown"), "10.0.0.7");
  EXPECT_EQ(p.client_of("10.0.0.7", " , 203.0.113.5 ,"), "203.0.113.5");
}

// The calculator's limit (one a minute here) over real sockets, with and without trusting the
// loopback peer the test connects from.
class TrustedProxiesServer : public ::testing::Test {
 protected:
  void start(const std::vector<std::string>& trusted) {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    SiteConfig config;
    config.calc_rate_per_min = 1;
    auto site = Site::create(*store_, config);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
    SiteServerConfig sc{.host = "127.0.0.1", .port = 0, .threads = 1, .heavy_threads = 0};
    sc.trusted_proxies = proxies(trusted);
    auto server = SiteServer::start(*site_, sc);
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
  }
  long calc_from(const std::string& forwarded_for) {
    HttpRequest r;
    r.url = server_->base_url() + "/api/v1/calc";
    r.body = "{}";
    r.headers.push_back("Content-Type: application/json");
    if (!forwarded_for.empty()) r.headers.push_back("X-Forwarded-For: " + forwarded_for);
    auto response = http_fetch(r);
    EXPECT_TRUE(response) << response.error().message;
    return response ? response->status : 0;
  }
  test::TempDir dir_;
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
  std::unique_ptr<SiteServer> server_;
};

TEST_F(TrustedProxiesServer, BehindATrustedProxyEachForwardedClientHasItsOwnLimit) {
  start({"127.0.0.1"});
  EXPECT_NE(calc_from("203.0.113.5"), 429);
  EXPECT_EQ(calc_from("203.0.113.5"), 429);
  EXPECT_NE(calc_from("203.0.113.6"), 429);  // another client behind the same balancer
  EXPECT_EQ(calc_from("1.2.3.4, 203.0.113.6"), 429);  // a forged first hop changes nothing
}

TEST_F(TrustedProxiesServer, WithoutTrustTheHeaderIsIgnored) {
  start({});
  EXPECT_NE(calc_from("203.0.113.5"), 429);
  EXPECT_EQ(calc_from("203.0.113.6"), 429);  // the same peer, whatever it claims
}

}  // namespace
}  // namespace sm::site
