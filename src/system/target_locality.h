#pragma once
// Whether a server URL points at this machine: its host is "localhost", a loopback or
// unspecified address, an address of one of this machine's network interfaces, or a name that
// resolves only to such addresses. Everything else — including a name that does not resolve —
// is another machine. The interface list (getifaddrs) and the resolver (getaddrinfo) are
// injected, so tests give their own.
//
//   auto where = sm::classify_url("http://gpu-box:8000", sm::system_host_lookup());
//   // where.local == false
//   // where.reason == "gpu-box resolves to 10.0.0.7, which is not an address of this machine"
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

struct sockaddr;

namespace sm {

/// An IPv4 or IPv6 address. IPv4-mapped IPv6 addresses (::ffff:10.0.0.5) are kept as IPv4.
struct IpAddress {
  enum class Family : uint8_t { V4, V6 };
  Family family = Family::V4;
  std::array<uint8_t, 16> bytes{};  ///< network order; the first 4 for IPv4
  std::string zone;                 ///< IPv6 zone id as written after '%' ("eth0", "2"); empty = none

  /// "10.0.0.5", "::1", "fe80::1%eth0"; std::nullopt when `text` is not an address.
  static std::optional<IpAddress> parse(std::string_view text);
  /// From a socket address (AF_INET or AF_INET6); std::nullopt for other families.
  static std::optional<IpAddress> from_sockaddr(const sockaddr* address);

  std::string to_string() const;  ///< "10.0.0.5", "fe80::1%eth0"
  bool is_loopback() const;       ///< 127.0.0.0/8 or ::1
  bool is_unspecified() const;    ///< 0.0.0.0 or :: (connecting to it reaches this machine)
  bool is_link_local() const;     ///< fe80::/10 (only meaningful with a zone)
  /// Same family and bytes; zones are not compared.
  bool same_address(const IpAddress& other) const;
};

/// One address of one network interface of this machine.
struct InterfaceAddress {
  std::string interface;  ///< "eth0", "lo"
  uint32_t index = 0;     ///< the interface's index (what a numeric zone id names); 0 = unknown
  IpAddress address;
};

/// How names and this machine's addresses are found.
struct HostLookup {
  std::function<std::vector<InterfaceAddress>()> interfaces;  ///< every address of every interface
  /// The addresses a host name resolves to; an error (or an empty list) when it does not resolve.
  std::function<Result<std::vector<IpAddress>>(const std::string& host)> resolve;
};

/// getifaddrs and getaddrinfo (TCP addresses of both families).
HostLookup system_host_lookup();

/// Where a server runs, and why speedmatrix thinks so (one phrase, for the result and the report).
struct TargetLocality {
  bool local = true;   ///< the server runs on this machine
  std::string reason;  ///< e.g. "127.0.0.1 is a loopback address"
};

/// The host of a URL, without brackets, port or user info, with a percent-encoded IPv6 zone
/// decoded (unlike redaction's url_host, which keeps the URL's text): "http://[fe80::1%25eth0]:8000/v1"
/// -> "fe80::1%eth0". The scheme may be absent.
std::string target_host(std::string_view url);

/// Classifies a host: an IP literal by itself, "localhost" (and *.localhost) as this machine,
/// other names by every address they resolve to (all local: local; any other: remote).
TargetLocality classify_host(std::string_view host, const HostLookup& lookup);

/// classify_host(target_host(url)).
TargetLocality classify_url(std::string_view url, const HostLookup& lookup);

}  // namespace sm
