#include "selftest/tls_server.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <cerrno>
#include <csignal>

namespace sm {

namespace {

int select_h2(SSL*, const unsigned char** out, unsigned char* out_len, const unsigned char* in, unsigned int in_len,
              void*) {
  static const unsigned char kH2[] = {2, 'h', '2'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, out_len, kH2, sizeof kH2, in, in_len) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

// errno for an SSL_ERROR_*: EAGAIN when the socket must be waited for, EIO otherwise.
ssize_t fail_with(SSL* ssl, int ret) {
  const int e = SSL_get_error(ssl, ret);
  errno = (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) ? EAGAIN : EIO;
  ERR_clear_error();
  return -1;
}

}  // namespace

Result<std::unique_ptr<TlsServerContext>> TlsServerContext::create(bool offer_h2) {
  // SSL_write writes with write(2), which has no MSG_NOSIGNAL: a client that hangs up mid-write
  // would kill the process with SIGPIPE. The streamer treats EPIPE like any closed connection.
  std::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<TlsServerContext> c(new TlsServerContext());
  c->ctx_ = SSL_CTX_new(TLS_server_method());
  if (!c->ctx_) return fail(ErrorCode::Internal, "SSL_CTX_new failed");
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  bool ok = key && cert;
  if (ok) {
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert), 2 * 24 * 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("speedmatrix selftest"),
                               -1, -1, 0);
    X509_set_issuer_name(cert, name);
    ok = X509_sign(cert, key, EVP_sha256()) > 0 && SSL_CTX_use_certificate(c->ctx_, cert) == 1 &&
         SSL_CTX_use_PrivateKey(c->ctx_, key) == 1;
  }
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!ok) return fail(ErrorCode::Internal, "cannot make the self-test's TLS certificate");
  // Writes may be partial, and a write retried after EAGAIN may come from a grown buffer.
  SSL_CTX_set_mode(c->ctx_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (offer_h2) SSL_CTX_set_alpn_select_cb(c->ctx_, &select_h2, nullptr);
  return c;
}

TlsServerContext::~TlsServerContext() {
  if (ctx_) SSL_CTX_free(ctx_);
}

SSL* TlsServerContext::wrap(int fd) const {
  SSL* ssl = SSL_new(ctx_);
  SSL_set_fd(ssl, fd);
  SSL_set_accept_state(ssl);
  return ssl;
}

int tls_handshake(SSL* ssl) {
  const int r = SSL_do_handshake(ssl);
  if (r == 1) return 1;
  return fail_with(ssl, r) < 0 && errno == EAGAIN ? 0 : -1;
}

ssize_t tls_read(SSL* ssl, char* buf, size_t len) {
  size_t n = 0;
  const int r = SSL_read_ex(ssl, buf, len, &n);
  if (r == 1) return static_cast<ssize_t>(n);
  const int e = SSL_get_error(ssl, r);
  if (e == SSL_ERROR_ZERO_RETURN) return 0;
  return fail_with(ssl, r);
}

ssize_t tls_write(SSL* ssl, const char* buf, size_t len) {
  size_t n = 0;
  const int r = SSL_write_ex(ssl, buf, len, &n);
  if (r == 1) return static_cast<ssize_t>(n);
  return fail_with(ssl, r);
}

}  // namespace sm
