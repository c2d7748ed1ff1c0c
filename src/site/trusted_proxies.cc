#include "site/trusted_proxies.h"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

namespace sm::site {

namespace {

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "[2001:db8::1]:443" → "2001:db8::1", "203.0.113.5:5123" → "203.0.113.5" (some proxies add the
// client's port); a bare IPv6 address has several colons and stays as it is.
std::string_view without_port(std::string_view hop) {
  if (hop.starts_with('[')) {
    const size_t close = hop.find(']');
    return close == std::string_view::npos ? hop : hop.substr(1, close - 1);
  }
  const size_t colon = hop.find(':');
  if (colon != std::string_view::npos && hop.find(':', colon + 1) == std::string_view::npos) return hop.substr(0, colon);
  return hop;
}

}  // namespace

bool TrustedProxies::parse_address(std::string_view text, Network& out) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(text), ec);
  if (ec) return false;
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    const auto v4 = address.to_v6().to_v4().to_bytes();
    out.v6 = false;
    std::memcpy(out.bytes, v4.data(), v4.size());
  } else if (address.is_v4()) {
    const auto v4 = address.to_v4().to_bytes();
    out.v6 = false;
    std::memcpy(out.bytes, v4.data(), v4.size());
  } else {
    const auto v6 = address.to_v6().to_bytes();
    out.v6 = true;
    std::memcpy(out.bytes, v6.data(), v6.size());
  }
  out.prefix_bits = out.v6 ? 128 : 32;
  return true;
}

Result<TrustedProxies> TrustedProxies::parse(const std::vector<std::string>& entries) {
  TrustedProxies out;
  for (const std::string& entry : entries) {
    const std::string_view text = trim_spaces(entry);
    const size_t slash = text.find('/');
    Network n;
    auto bad = [&] {
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("trusted proxy '{}' is not an address or a CIDR block (e.g. 10.0.0.0/8, ::1)", entry));
    };
    if (!parse_address(text.substr(0, slash), n)) return bad();
    if (slash != std::string_view::npos) {
      const std::string_view bits = text.substr(slash + 1);
      int prefix = -1;
      const auto [end, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
      if (ec != std::errc() || end != bits.data() + bits.size() || prefix < 0 || prefix > n.prefix_bits) return bad();
      n.prefix_bits = prefix;
    }
    out.networks_.push_back(n);
  }
  return out;
}

bool TrustedProxies::contains(const Network& a) const {
  return std::any_of(networks_.begin(), networks_.end(), [&](const Network& n) {
    if (n.v6 != a.v6) return false;
    const int whole = n.prefix_bits / 8, rest = n.prefix_bits % 8;
    if (std::memcmp(n.bytes, a.bytes, static_cast<size_t>(whole)) != 0) return false;
    if (rest == 0) return true;
    const auto mask = static_cast<unsigned char>(0xFF << (8 - rest));
    return (n.bytes[whole] & mask) == (a.bytes[whole] & mask);
  });
}

bool TrustedProxies::trusts(std::string_view address) const {
  Network a;
  return parse_address(trim_spaces(address), a) && contains(a);
}

std::string TrustedProxies::client_of(std::string_view peer, std::string_view forwarded_for) const {
  if (!trusts(peer)) return std::string(peer);
  std::string client(peer);
  std::string_view rest = forwarded_for;
  while (!rest.empty()) {
    const size_t comma = rest.rfind(',');
    const std::string_view hop = trim_spaces(comma == std::string_view::npos ? rest : rest.substr(comma + 1));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(0, comma);
    if (hop.empty()) continue;
    const std::string_view address = without_port(hop);
    Network a;
    if (!parse_address(address, a)) break;
    client = std::string(address);
    if (!contains(a)) break;
  }
  return client;
}

}  // namespace sm::site
