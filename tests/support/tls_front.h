#pragma once
// An https front for a test server: terminates TLS on 127.0.0.1 port 0 with a test certificate
// and relays each connection's bytes to a plain server on loopback (stunnel in miniature), so
// every scripted-server test can run over https. One Asio thread; Boost.Asio SSL (OpenSSL).
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "support/test_certificate.h"

namespace sm::test {

class TlsFront {
 public:
  /// Serves `certificate` and relays to 127.0.0.1:`backend_port`. With `offer_h2` the TLS
  /// handshake accepts HTTP/2 when the client offers it (ALPN "h2"), and the backend must then
  /// speak cleartext HTTP/2 (the self-test's HTTP/2 streamer); without, clients get HTTP/1.1.
  TlsFront(const TestCertificate& certificate, uint16_t backend_port, bool offer_h2 = false);
  ~TlsFront();
  TlsFront(const TlsFront&) = delete;
  TlsFront& operator=(const TlsFront&) = delete;

  uint16_t port() const;
  /// "https://127.0.0.1:<port>"
  std::string url() const;
  /// TLS handshakes completed (connections relayed).
  int64_t handshakes() const;
  /// Handshakes the client broke off or that failed (a client that does not trust the certificate).
  int64_t failed_handshakes() const;
  /// Stops accepting, drops every connection, joins the thread. Idempotent.
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sm::test
