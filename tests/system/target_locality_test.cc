// Whether a target URL is this machine, with injected interface lists and resolver answers.
#include "system/target_locality.h"

#include <gtest/gtest.h>

#include <map>

namespace sm {
namespace {

IpAddress ip(std::string_view text) {
  auto a = IpAddress::parse(text);
  EXPECT_TRUE(a.has_value()) << text;
  return a.value_or(IpAddress{});
}

// A machine with loopback, a LAN address on eth0 (IPv4, global IPv6, link-local) and a docker
// bridge; names resolve from `names`, and every lookup is counted.
struct FakeMachine {
  std::map<std::string, std::vector<std::string>> names;
  int resolves = 0;

  HostLookup lookup() {
    HostLookup l;
    l.interfaces = [] {
      return std::vector<InterfaceAddress>{
          {"lo", 1, ip("127.0.0.1")},          {"lo", 1, ip("::1")},
          {"eth0", 2, ip("192.168.1.20")},     {"eth0", 2, ip("2001:db8::20")},
          {"eth0", 2, ip("fe80::1234")},       {"docker0", 3, ip("172.17.0.1")},
      };
    };
    l.resolve = [this](const std::string& host) -> Result<std::vector<IpAddress>> {
      ++resolves;
      auto it = names.find(host);
      if (it == names.end()) return fail(ErrorCode::Network, "Name or service not known");
      std::vector<IpAddress> out;
      for (const auto& a : it->second) out.push_back(ip(a));
      return out;
    };
    return l;
  }
};

TEST(TargetHost, StripsSchemePortPathUserInfoAndBrackets) {
  EXPECT_EQ(target_host("http://127.0.0.1:8000"), "127.0.0.1");
  EXPECT_EQ(target_host("https://gpu-box.lan/v1"), "gpu-box.lan");
  EXPECT_EQ(target_host("http://user:secret@gpu-box:8000/v1?x=1"), "gpu-box");
  EXPECT_EQ(target_host("gpu-box:8000"), "gpu-box");
  EXPECT_EQ(target_host("http://[::1]:8000"), "::1");
  EXPECT_EQ(target_host("http://[fe80::1234%25eth0]:8000/v1"), "fe80::1234%eth0");
  EXPECT_EQ(target_host("http://[fe80::1234%eth0]:8000"), "fe80::1234%eth0");
  EXPECT_EQ(target_host("http://"), "");
}

TEST(IpAddress, ParsesPrintsAndKnowsItsKind) {
  EXPECT_FALSE(IpAddress::parse("gpu-box"));
  EXPECT_FALSE(IpAddress::parse("10.0.0.256"));
  EXPECT_FALSE(IpAddress::parse("fe80::1%"));
  EXPECT_FALSE(IpAddress::parse("10.0.0.1%eth0"));  // zones are IPv6 only
  EXPECT_EQ(ip("10.0.0.5").to_string(), "10.0.0.5");
  EXPECT_EQ(ip("FE80::1%eth0").to_string(), "fe80::1%eth0");
  EXPECT_TRUE(ip("127.0.0.1").is_loopback());
  EXPECT_TRUE(ip("127.200.3.4").is_loopback());
  EXPECT_TRUE(ip("::1").is_loopback());
  EXPECT_TRUE(ip("::ffff:127.0.0.1").is_loopback());
  EXPECT_FALSE(ip("128.0.0.1").is_loopback());
  EXPECT_FALSE(ip("::2").is_loopback());
  EXPECT_TRUE(ip("0.0.0.0").is_unspecified());
  EXPECT_TRUE(ip("::").is_unspecified());
  EXPECT_TRUE(ip("fe80::1").is_link_local());
  EXPECT_FALSE(ip("2001:db8::1").is_link_local());
  EXPECT_TRUE(ip("10.0.0.5").same_address(ip("10.0.0.5")));
  EXPECT_FALSE(ip("10.0.0.5").same_address(ip("10.0.0.6")));
}

TEST(TargetLocality, LoopbackIsThisMachineWithoutAskingTheResolver) {
  FakeMachine m;
  HostLookup l = m.lookup();
  for (const char* url : {"http://127.0.0.1:8000", "http://127.1.2.3:8000", "http://[::1]:8000", "http://localhost:8000",
                          "http://LocalHost.:8000/v1", "http://api.localhost:8000", "http://[::ffff:127.0.0.1]:8000",
                          "http://0.0.0.0:8000"}) {
    TargetLocality where = classify_url(url, l);
    EXPECT_TRUE(where.local) << url << ": " << where.reason;
    EXPECT_FALSE(where.reason.empty()) << url;
  }
  EXPECT_EQ(m.resolves, 0);
  EXPECT_EQ(classify_url("http://127.0.0.1:8000", l).reason, "127.0.0.1 is a loopback address");
}

TEST(TargetLocality, ThisHostsLanAddressIsLocalAndItsNeighboursAreNot) {
  FakeMachine m;
  HostLookup l = m.lookup();
  TargetLocality mine = classify_url("http://192.168.1.20:8000", l);
  EXPECT_TRUE(mine.local);
  EXPECT_EQ(mine.reason, "192.168.1.20 is an address of this machine (eth0)");
  TargetLocality neighbour = classify_url("http://192.168.1.21:8000", l);
  EXPECT_FALSE(neighbour.local);
  EXPECT_EQ(neighbour.reason, "192.168.1.21 is not an address of this machine");
  // A container on this machine reached at its own address is not one of this machine's
  // addresses: remote (docs/METRICS.md says to declare it or use a published port).
  EXPECT_FALSE(classify_url("http://172.17.0.2:8000", l).local);
  EXPECT_TRUE(classify_url("http://172.17.0.1:8000", l).local);
  EXPECT_EQ(m.resolves, 0);
}

TEST(TargetLocality, Ipv6AddressesWithBracketsAndZones) {
  FakeMachine m;
  HostLookup l = m.lookup();
  EXPECT_TRUE(classify_url("http://[2001:db8::20]:8000", l).local);
  EXPECT_FALSE(classify_url("http://[2001:db8::21]:8000", l).local);
  EXPECT_TRUE(classify_url("http://[::ffff:192.168.1.20]:8000", l).local);  // IPv4-mapped
  EXPECT_TRUE(classify_url("http://[fe80::1234%25eth0]:8000", l).local);    // zone by name, percent-encoded
  EXPECT_TRUE(classify_url("http://[fe80::1234%2]:8000", l).local);         // zone by index
  // The same link-local address on another link is another machine.
  TargetLocality other_link = classify_url("http://[fe80::1234%25wlan0]:8000", l);
  EXPECT_FALSE(other_link.local);
  EXPECT_EQ(other_link.reason, "fe80::1234%wlan0 is not an address of this machine");
  EXPECT_FALSE(classify_url("http://[fe80::1234%3]:8000", l).local);
  EXPECT_EQ(m.resolves, 0);
}

TEST(TargetLocality, NamesAreJudgedByEveryAddressTheyResolveTo) {
  FakeMachine m;
  m.names = {{"workstation", {"192.168.1.20", "2001:db8::20"}},
             {"debian-host", {"127.0.1.1"}},
             {"gpu-box", {"10.0.0.7"}},
             {"gpu-box6", {"2001:db8::99", "10.0.0.7"}},
             {"split", {"127.0.1.1", "10.0.0.7"}},
             {"empty", {}}};
  HostLookup l = m.lookup();
  TargetLocality ws = classify_url("http://workstation:8000", l);
  EXPECT_TRUE(ws.local);
  EXPECT_EQ(ws.reason, "workstation resolves to 192.168.1.20, 2001:db8::20, which are this machine");
  EXPECT_TRUE(classify_url("http://debian-host:8000", l).local);

  TargetLocality gpu = classify_url("http://gpu-box:8000/v1", l);
  EXPECT_FALSE(gpu.local);
  EXPECT_EQ(gpu.reason, "gpu-box resolves to 10.0.0.7, which is not an address of this machine");
  EXPECT_FALSE(classify_url("http://gpu-box6:8000", l).local);

  // Some addresses here, some elsewhere: which one a connection uses is not ours to know, so
  // nothing is credited to this machine.
  TargetLocality split = classify_url("http://split:8000", l);
  EXPECT_FALSE(split.local);
  EXPECT_NE(split.reason.find("127.0.1.1"), std::string::npos);
  EXPECT_NE(split.reason.find("10.0.0.7"), std::string::npos);
}

TEST(TargetLocality, ANameThatDoesNotResolveIsTreatedAsRemoteAndSaysSo) {
  FakeMachine m;
  m.names = {{"empty", {}}};
  HostLookup l = m.lookup();
  TargetLocality nowhere = classify_url("http://no-such-host.invalid:8000", l);
  EXPECT_FALSE(nowhere.local);
  EXPECT_EQ(nowhere.reason,
            "no-such-host.invalid does not resolve (Name or service not known), so it is treated as another machine");
  TargetLocality empty = classify_url("http://empty:8000", l);
  EXPECT_FALSE(empty.local);
  EXPECT_NE(empty.reason.find("does not resolve"), std::string::npos);
  EXPECT_FALSE(classify_url("http://", l).local);
  EXPECT_EQ(m.resolves, 2);
}

TEST(TargetLocality, ThisMachinesOwnLookupFindsItsLoopbackInterface) {
  HostLookup l = system_host_lookup();
  auto interfaces = l.interfaces();
  bool loopback = false;
  for (const auto& i : interfaces) loopback = loopback || i.address.is_loopback();
  EXPECT_TRUE(loopback) << "getifaddrs listed " << interfaces.size() << " addresses and no loopback";
  EXPECT_TRUE(classify_url("http://127.0.0.1:8000", l).local);
  EXPECT_TRUE(classify_url("http://localhost:8000", l).local);
}

}  // namespace
}  // namespace sm
