#include "support/tls_front.h"

#include <utility>  // first: Boost 1.74's asio.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

#include <fmt/format.h>
#include <thread>

#include "support/byte_pump.h"

namespace sm::test {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// One client connection: its TLS side and the plain connection to the backend.
struct Relay : std::enable_shared_from_this<Relay> {
  asio::ssl::stream<tcp::socket> tls;
  tcp::socket backend;
  bool closed = false;

  Relay(tcp::socket client, asio::ssl::context& ssl) : tls(std::move(client), ssl), backend(tls.get_executor()) {}

  void close() {
    if (closed) return;
    closed = true;
    boost::system::error_code ec;
    tls.lowest_layer().close(ec);
    backend.close(ec);
  }
};

}  // namespace

struct TlsFront::Impl {
  asio::io_context io;
  asio::ssl::context ssl{asio::ssl::context::tls_server};
  tcp::acceptor acceptor{io};
  uint16_t backend_port = 0;
  uint16_t port = 0;  ///< where it listens
  std::atomic<int64_t> handshakes{0};
  std::atomic<int64_t> failed{0};
  std::thread thread;
  bool stopped = false;

  void accept() {
    acceptor.async_accept([this](boost::system::error_code ec, tcp::socket client) {
      if (ec) return;  // closed by stop()
      client.set_option(tcp::no_delay(true));
      auto relay = std::make_shared<Relay>(std::move(client), ssl);
      relay->tls.async_handshake(asio::ssl::stream_base::server, [this, relay](boost::system::error_code hec) {
        if (hec) {
          ++failed;
          return relay->close();
        }
        ++handshakes;
        relay->backend.async_connect(tcp::endpoint(asio::ip::address_v4::loopback(), backend_port),
                                     [relay](boost::system::error_code cec) {
                                       if (cec) return relay->close();
                                       relay->backend.set_option(tcp::no_delay(true));
                                       auto close = [relay] { relay->close(); };
                                       using Up = BytePump<asio::ssl::stream<tcp::socket>, tcp::socket>;
                                       using Down = BytePump<tcp::socket, asio::ssl::stream<tcp::socket>>;
                                       std::make_shared<Up>(relay->tls, relay->backend, close)->start();
                                       std::make_shared<Down>(relay->backend, relay->tls, close)->start();
                                     });
      });
      accept();
    });
  }
};

// ALPN: "h2" when the client offers it; otherwise no protocol (the client falls back to HTTP/1.1).
static int select_h2(SSL*, const unsigned char** out, unsigned char* out_len, const unsigned char* in, unsigned int in_len,
              void*) {
  static const unsigned char kH2[] = {2, 'h', '2'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, out_len, kH2, sizeof kH2, in, in_len) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

TlsFront::TlsFront(const TestCertificate& certificate, uint16_t backend_port, bool offer_h2)
    : impl_(std::make_unique<Impl>()) {
  impl_->backend_port = backend_port;
  if (offer_h2) SSL_CTX_set_alpn_select_cb(impl_->ssl.native_handle(), &select_h2, nullptr);
  impl_->ssl.use_certificate_chain_file(certificate.cert_file);
  impl_->ssl.use_private_key_file(certificate.key_file, asio::ssl::context::pem);
  tcp::endpoint endpoint(asio::ip::address_v4::loopback(), 0);
  impl_->acceptor.open(endpoint.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(endpoint);
  impl_->acceptor.listen(1024);
  impl_->port = impl_->acceptor.local_endpoint().port();
  impl_->accept();
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

TlsFront::~TlsFront() { stop(); }

uint16_t TlsFront::port() const { return impl_->port; }

std::string TlsFront::url() const { return fmt::format("https://127.0.0.1:{}", port()); }

int64_t TlsFront::handshakes() const { return impl_->handshakes.load(); }

int64_t TlsFront::failed_handshakes() const { return impl_->failed.load(); }

void TlsFront::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace sm::test
