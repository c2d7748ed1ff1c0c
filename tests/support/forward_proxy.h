#pragma once
// A forwarding HTTP proxy on 127.0.0.1 port 0, as a corporate or lab proxy: plain http requests
// in absolute form ("POST http://host:port/v1/completions HTTP/1.1") are passed on in origin
// form, and https goes through CONNECT tunnels. It records every request line it handled, so a
// test can assert the traffic really went through it. One Asio thread.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sm::test {

class ForwardProxy {
 public:
  ForwardProxy();
  ~ForwardProxy();
  ForwardProxy(const ForwardProxy&) = delete;
  ForwardProxy& operator=(const ForwardProxy&) = delete;

  uint16_t port() const;
  /// "http://127.0.0.1:<port>"
  std::string url() const;
  /// Every request it handled, in order: "CONNECT 127.0.0.1:4431" for a tunnel (what goes
  /// through it is encrypted), "GET http://127.0.0.1:8000/v1/models" for a forwarded request.
  std::vector<std::string> requests() const;
  /// Stops accepting, drops every connection, joins the thread. Idempotent.
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sm::test
