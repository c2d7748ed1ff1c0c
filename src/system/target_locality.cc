#include "system/target_locality.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fmt/format.h>

#include "core/text.h"

namespace sm {

namespace {

constexpr std::array<uint8_t, 12> kV4MappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

// ::ffff:a.b.c.d -> a.b.c.d, so a mapped loopback or interface address compares as IPv4.
IpAddress unmap(IpAddress a) {
  if (a.family == IpAddress::Family::V6 && std::equal(kV4MappedPrefix.begin(), kV4MappedPrefix.end(), a.bytes.begin())) {
    IpAddress v4;
    std::copy(a.bytes.begin() + 12, a.bytes.end(), v4.bytes.begin());
    return v4;
  }
  return a;
}

bool is_localhost_name(std::string_view host) {
  std::string h = ascii_lower(host);
  if (h.ends_with('.')) h.pop_back();  // "localhost." is the same name, fully qualified
  return h == "localhost" || h.ends_with(".localhost");
}

// The interface that holds `a`, if any. A link-local address with a zone must be on the interface
// the zone names (the same fe80:: address can be another machine on another link).
const InterfaceAddress* find_interface(const IpAddress& a, const std::vector<InterfaceAddress>& interfaces) {
  for (const auto& i : interfaces) {
    if (!unmap(i.address).same_address(a)) continue;
    if (a.is_link_local() && !a.zone.empty()) {
      const bool same_link = all_digits(a.zone) ? std::to_string(i.index) == a.zone : i.interface == a.zone;
      if (!same_link) continue;
    }
    return &i;
  }
  return nullptr;
}

// One address: why it is (or is not) this machine.
TargetLocality classify_address(const IpAddress& address, const std::vector<InterfaceAddress>& interfaces) {
  const IpAddress a = unmap(address);
  const std::string text = address.to_string();
  if (a.is_loopback()) return {true, text + " is a loopback address"};
  if (a.is_unspecified()) return {true, text + " is the unspecified address, which reaches this machine"};
  if (const InterfaceAddress* i = find_interface(a, interfaces))
    return {true, fmt::format("{} is an address of this machine ({})", text, i->interface)};
  return {false, text + " is not an address of this machine"};
}

std::string join_addresses(const std::vector<IpAddress>& list) {
  std::string out;
  for (const auto& a : list) out += (out.empty() ? "" : ", ") + a.to_string();
  return out;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<InterfaceAddress> system_interfaces() {
  std::vector<InterfaceAddress> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr) continue;
    auto address = IpAddress::from_sockaddr(i->ifa_addr);
    if (!address) continue;
    InterfaceAddress entry;
    entry.interface = i->ifa_name ? i->ifa_name : "";
    entry.index = i->ifa_name ? if_nametoindex(i->ifa_name) : 0;
    entry.address = std::move(*address);
    entry.address.zone.clear();
    out.push_back(std::move(entry));
  }
  freeifaddrs(list);
  return out;
}

Result<std::vector<IpAddress>> system_resolve(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0)
    return fail(ErrorCode::Network, gai_strerror(rc));
  std::vector<IpAddress> out;
  for (addrinfo* a = found; a; a = a->ai_next)
    if (auto address = IpAddress::from_sockaddr(a->ai_addr)) out.push_back(std::move(*address));
  freeaddrinfo(found);
  return out;
}

}  // namespace

std::optional<IpAddress> IpAddress::parse(std::string_view text) {
  IpAddress a;
  std::string body(text);
  if (size_t pct = body.find('%'); pct != std::string::npos) {
    a.zone = body.substr(pct + 1);
    body.resize(pct);
    if (a.zone.empty()) return std::nullopt;
  }
  if (a.zone.empty() && inet_pton(AF_INET, body.c_str(), a.bytes.data()) == 1) return a;
  a.family = Family::V6;
  if (inet_pton(AF_INET6, body.c_str(), a.bytes.data()) == 1) return a;
  return std::nullopt;
}

std::optional<IpAddress> IpAddress::from_sockaddr(const sockaddr* address) {
  if (!address) return std::nullopt;
  IpAddress a;
  if (address->sa_family == AF_INET) {
    sockaddr_in in{};
    std::memcpy(&in, address, sizeof in);
    std::memcpy(a.bytes.data(), &in.sin_addr, 4);
    return a;
  }
  if (address->sa_family == AF_INET6) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, address, sizeof in6);
    a.family = Family::V6;
    std::memcpy(a.bytes.data(), &in6.sin6_addr, 16);
    if (in6.sin6_scope_id != 0) a.zone = std::to_string(in6.sin6_scope_id);
    return a;
  }
  return std::nullopt;
}

std::string IpAddress::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {0};
  inet_ntop(family == Family::V4 ? AF_INET : AF_INET6, bytes.data(), buf, sizeof buf);
  std::string out = buf;
  if (!zone.empty()) out += "%" + zone;
  return out;
}

bool IpAddress::is_loopback() const {
  if (family == Family::V4) return bytes[0] == 127;
  const IpAddress a = unmap(*this);
  if (a.family == Family::V4) return a.is_loopback();
  return std::all_of(bytes.begin(), bytes.begin() + 15, [](uint8_t b) { return b == 0; }) && bytes[15] == 1;
}

bool IpAddress::is_unspecified() const {
  const size_t n = family == Family::V4 ? 4 : 16;
  return std::all_of(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n), [](uint8_t b) { return b == 0; });
}

bool IpAddress::is_link_local() const { return family == Family::V6 && bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80; }

bool IpAddress::same_address(const IpAddress& other) const {
  if (family != other.family) return false;
  const size_t n = family == Family::V4 ? 4 : 16;
  return std::equal(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n), other.bytes.begin());
}

HostLookup system_host_lookup() { return HostLookup{system_interfaces, system_resolve}; }

std::string target_host(std::string_view url) {
  std::string_view rest = url;
  if (size_t scheme = rest.find("://"); scheme != std::string_view::npos) rest.remove_prefix(scheme + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.starts_with('[')) {
    size_t close = authority.find(']');
    return percent_decode(authority.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
  }
  return std::string(authority.substr(0, authority.find(':')));
}

TargetLocality classify_host(std::string_view host, const HostLookup& lookup) {
  if (host.empty()) return {false, "the URL names no host"};
  if (is_localhost_name(host)) return {true, std::string(host) + " always means this machine"};
  const std::vector<InterfaceAddress> interfaces = lookup.interfaces ? lookup.interfaces() : std::vector<InterfaceAddress>{};
  if (auto literal = IpAddress::parse(host)) return classify_address(*literal, interfaces);

  const std::string name(host);
  auto resolved = lookup.resolve ? lookup.resolve(name) : fail(ErrorCode::Network, "no resolver");
  if (!resolved || resolved->empty()) {
    const std::string why = resolved ? "no address" : resolved.error().message;
    return {false, fmt::format("{} does not resolve ({}), so it is treated as another machine", name, why)};
  }
  std::vector<IpAddress> local, remote;
  for (const auto& a : *resolved) {
    auto& bucket = classify_address(a, interfaces).local ? local : remote;
    if (std::none_of(bucket.begin(), bucket.end(), [&](const IpAddress& b) { return b.same_address(a); }))
      bucket.push_back(a);
  }
  if (remote.empty())
    return {true, fmt::format("{} resolves to {}, which {} this machine", name, join_addresses(local),
                              local.size() == 1 ? "is" : "are")};
  if (local.empty())
    return {false, fmt::format("{} resolves to {}, which {} not an address of this machine", name,
                               join_addresses(remote), remote.size() == 1 ? "is" : "are")};
  return {false, fmt::format("{} resolves to addresses of this machine ({}) and of others ({}), so it is treated "
                             "as another machine",
                             name, join_addresses(local), join_addresses(remote))};
}

TargetLocality classify_url(std::string_view url, const HostLookup& lookup) {
  return classify_host(target_host(url), lookup);
}

}  // namespace sm
