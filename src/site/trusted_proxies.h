#pragma once
// Who a request is from when the site stands behind a load balancer or reverse proxy: every
// connection then comes from the proxy, and the client's own address is in X-Forwarded-For.
// That header is only believed from proxies named with `serve --trusted-proxy` (anyone else
// could write it to escape the calculator's per-client rate limit).
//
//   auto proxies = sm::site::TrustedProxies::parse({"10.0.0.0/8", "127.0.0.1"});
//   std::string client = proxies->client_of("10.0.0.7", "203.0.113.5, 10.0.0.3");  // "203.0.113.5"
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace sm::site {

class TrustedProxies {
 public:
  /// Addresses or CIDR blocks, IPv4 or IPv6 ("10.0.0.0/8", "::1", "fd00::/8"). Fails naming the
  /// first entry that is neither.
  static Result<TrustedProxies> parse(const std::vector<std::string>& entries);

  bool empty() const { return networks_.empty(); }
  /// Whether `address` (numeric, IPv4 or IPv6; an IPv4-mapped IPv6 address counts as IPv4) is a
  /// trusted proxy.
  bool trusts(std::string_view address) const;

  /// The client of a request that arrived from `peer` with these X-Forwarded-For values (one
  /// header's text, or several joined by commas, in the order received). When `peer` is not
  /// trusted: `peer`. Otherwise the header is read from its right end (the hop nearest to us),
  /// skipping trusted proxies; the first address that is not one is the client. A malformed
  /// entry ends the walk, and the client is then the last trusted hop read (so is a header of
  /// trusted proxies only, or none).
  std::string client_of(std::string_view peer, std::string_view forwarded_for) const;

 private:
  struct Network {
    bool v6 = false;
    unsigned char bytes[16] = {};
    int prefix_bits = 0;
  };
  std::vector<Network> networks_;
  static bool parse_address(std::string_view text, Network& out);
  bool contains(const Network& address) const;
};

}  // namespace sm::site
