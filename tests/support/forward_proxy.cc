#include "support/forward_proxy.h"

#include <utility>  // first: Boost 1.74's asio.hpp uses std::exchange without it

#include <boost/asio.hpp>

#include <fmt/format.h>
#include <mutex>
#include <sstream>
#include <thread>

#include "support/byte_pump.h"

namespace sm::test {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

std::string lower_case(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "host:port" -> endpoint on loopback (the tests' proxy reaches only this machine's servers).
bool parse_authority(const std::string& authority, std::string& host, uint16_t& port) {
  const size_t colon = authority.rfind(':');
  if (colon == std::string::npos) return false;
  host = authority.substr(0, colon);
  port = static_cast<uint16_t>(std::stoi(authority.substr(colon + 1)));
  return true;
}

}  // namespace

struct ForwardProxy::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  uint16_t port = 0;
  mutable std::mutex mu;
  std::vector<std::string> requests;
  std::thread thread;
  bool stopped = false;

  void record(std::string line) {
    std::lock_guard lock(mu);
    requests.push_back(std::move(line));
  }

  // One client connection and, once its first request named where to, the upstream one.
  struct Conn : std::enable_shared_from_this<Conn> {
    Impl* proxy;
    tcp::socket client;
    tcp::socket upstream;
    asio::streambuf in;
    std::string upstream_authority;  ///< "host:port" upstream is connected to; empty before
    bool closed = false;

    Conn(Impl* p, tcp::socket c) : proxy(p), client(std::move(c)), upstream(client.get_executor()) {}

    void close() {
      if (closed) return;
      closed = true;
      boost::system::error_code ec;
      client.close(ec);
      upstream.close(ec);
    }

    std::string take_buffered() {
      std::string out(asio::buffers_begin(in.data()), asio::buffers_end(in.data()));
      in.consume(in.size());
      return out;
    }

    void read_head() {
      auto self = shared_from_this();
      asio::async_read_until(client, in, "\r\n\r\n", [self](boost::system::error_code ec, size_t head_bytes) {
        if (ec) return self->close();
        std::string head(asio::buffers_begin(self->in.data()), asio::buffers_begin(self->in.data()) + head_bytes);
        self->in.consume(head_bytes);
        self->on_head(head);
      });
    }

    void on_head(const std::string& head) {
      std::istringstream lines(head);
      std::string request_line;
      std::getline(lines, request_line);
      if (!request_line.empty() && request_line.back() == '\r') request_line.pop_back();
      std::istringstream parts(request_line);
      std::string method, target, version;
      parts >> method >> target >> version;
      if (method == "CONNECT") return tunnel(target);
      // Absolute form: http://host:port/path -> upstream host:port, origin form /path.
      const std::string scheme = "http://";
      if (lower_case(target.substr(0, scheme.size())) != scheme) return reject(400);
      const size_t path_at = target.find('/', scheme.size());
      const std::string authority = target.substr(scheme.size(), path_at - scheme.size());
      const std::string path = path_at == std::string::npos ? "/" : target.substr(path_at);
      proxy->record(method + " " + target);
      std::string out = method + " " + path + " " + version + "\r\n";
      size_t content_length = 0;
      for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) break;
        const std::string name = lower_case(line.substr(0, line.find(':')));
        if (name == "proxy-connection" || name == "proxy-authorization") continue;
        if (name == "content-length") content_length = std::stoul(line.substr(line.find(':') + 1));
        out += line + "\r\n";
      }
      out += "\r\n";
      auto self = shared_from_this();
      with_upstream(authority, [self, out, content_length] {
        // The body: what is buffered already, then the rest from the client.
        const size_t buffered = std::min(content_length, self->in.size());
        auto head_and_body = std::make_shared<std::string>(out);
        head_and_body->append(asio::buffers_begin(self->in.data()), asio::buffers_begin(self->in.data()) + buffered);
        self->in.consume(buffered);
        const size_t rest = content_length - buffered;
        asio::async_write(self->upstream, asio::buffer(*head_and_body),
                          [self, head_and_body, rest](boost::system::error_code ec, size_t) {
                            if (ec) return self->close();
                            self->forward_body(rest);
                          });
      });
    }

    void forward_body(size_t rest) {
      if (rest == 0) return read_head();
      auto self = shared_from_this();
      asio::async_read(client, in, asio::transfer_exactly(rest), [self, rest](boost::system::error_code ec, size_t) {
        if (ec) return self->close();
        auto body = std::make_shared<std::string>(self->take_buffered());
        const size_t sent = std::min(rest, body->size());
        asio::async_write(self->upstream, asio::buffer(body->data(), sent),
                          [self, body, rest, sent](boost::system::error_code wec, size_t) {
                            if (wec) return self->close();
                            self->forward_body(rest - sent);
                          });
      });
    }

    // Connects upstream once (every request of a connection goes to the same server), starts
    // relaying its answers back, then calls `then`.
    template <class F>
    void with_upstream(const std::string& authority, F then) {
      if (!upstream_authority.empty()) {
        if (authority != upstream_authority) return close();  // another server: not needed by the tests
        return then();
      }
      std::string host;
      uint16_t port = 0;
      if (!parse_authority(authority, host, port)) return reject(400);
      upstream_authority = authority;
      auto self = shared_from_this();
      upstream.async_connect(tcp::endpoint(asio::ip::address_v4::loopback(), port),
                             [self, then](boost::system::error_code ec) {
                               if (ec) return self->reject(502);
                               self->upstream.set_option(tcp::no_delay(true));
                               std::make_shared<BytePump<tcp::socket, tcp::socket>>(
                                   self->upstream, self->client, [self] { self->close(); })
                                   ->start();
                               then();
                             });
    }

    void tunnel(const std::string& authority) {
      proxy->record("CONNECT " + authority);
      std::string host;
      uint16_t port = 0;
      if (!parse_authority(authority, host, port)) return reject(400);
      auto self = shared_from_this();
      upstream.async_connect(tcp::endpoint(asio::ip::address_v4::loopback(), port), [self](boost::system::error_code ec) {
        if (ec) return self->reject(502);
        self->upstream.set_option(tcp::no_delay(true));
        auto reply = std::make_shared<std::string>("HTTP/1.1 200 Connection established\r\n\r\n");
        asio::async_write(self->client, asio::buffer(*reply), [self, reply](boost::system::error_code wec, size_t) {
          if (wec) return self->close();
          auto early = std::make_shared<std::string>(self->take_buffered());
          asio::async_write(self->upstream, asio::buffer(*early), [self, early](boost::system::error_code e2, size_t) {
            if (e2) return self->close();
            auto close = [self] { self->close(); };
            std::make_shared<BytePump<tcp::socket, tcp::socket>>(self->client, self->upstream, close)->start();
            std::make_shared<BytePump<tcp::socket, tcp::socket>>(self->upstream, self->client, close)->start();
          });
        });
      });
    }

    void reject(int status) {
      auto self = shared_from_this();
      auto reply = std::make_shared<std::string>(
          fmt::format("HTTP/1.1 {} Proxy Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", status));
      asio::async_write(client, asio::buffer(*reply), [self, reply](boost::system::error_code, size_t) { self->close(); });
    }
  };

  void accept() {
    acceptor.async_accept([this](boost::system::error_code ec, tcp::socket client) {
      if (ec) return;
      client.set_option(tcp::no_delay(true));
      std::make_shared<Conn>(this, std::move(client))->read_head();
      accept();
    });
  }
};

ForwardProxy::ForwardProxy() : impl_(std::make_unique<Impl>()) {
  tcp::endpoint endpoint(asio::ip::address_v4::loopback(), 0);
  impl_->acceptor.open(endpoint.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(endpoint);
  impl_->acceptor.listen(1024);
  impl_->port = impl_->acceptor.local_endpoint().port();
  impl_->accept();
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

ForwardProxy::~ForwardProxy() { stop(); }

uint16_t ForwardProxy::port() const { return impl_->port; }

std::string ForwardProxy::url() const { return fmt::format("http://127.0.0.1:{}", impl_->port); }

std::vector<std::string> ForwardProxy::requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->requests;
}

void ForwardProxy::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace sm::test
