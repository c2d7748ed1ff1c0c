#pragma once
// TLS for the self-test's streamers (selftest --tls): a throwaway self-signed certificate made in
// memory when the streamer starts, and non-blocking OpenSSL calls shaped like recv/send for the
// streamers' epoll loops. The client checks nothing (it is its own child process on loopback).
#include <openssl/ssl.h>
#include <sys/types.h>

#include <memory>

#include "core/error.h"

namespace sm {

class TlsServerContext {
 public:
  /// A context with a fresh P-256 certificate. `offer_h2`: accept HTTP/2 in the handshake (ALPN
  /// "h2") when the client offers it; otherwise no ALPN (the client speaks HTTP/1.1).
  static Result<std::unique_ptr<TlsServerContext>> create(bool offer_h2);
  ~TlsServerContext();
  TlsServerContext(const TlsServerContext&) = delete;
  TlsServerContext& operator=(const TlsServerContext&) = delete;

  /// A server-side TLS session on the connected, non-blocking socket `fd` (free with SSL_free).
  SSL* wrap(int fd) const;

 private:
  TlsServerContext() = default;
  SSL_CTX* ctx_ = nullptr;
};

/// One step of the handshake: 1 done, 0 not yet (wait for the socket), -1 failed.
int tls_handshake(SSL* ssl);

/// Like recv(2): bytes read, 0 when the peer closed, -1 with errno EAGAIN (wait) or EIO.
ssize_t tls_read(SSL* ssl, char* buf, size_t len);

/// Like send(2): bytes written (possibly fewer), -1 with errno EAGAIN (wait; call again with the
/// same bytes first) or EIO.
ssize_t tls_write(SSL* ssl, const char* buf, size_t len);

}  // namespace sm
