#include "site/site_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/range/iterator_range.hpp>

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "site/query_string.h"
#include "site/site_json.h"
#include "site/worker_pool.h"

namespace sm::site {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using asio::ip::tcp;

namespace {

constexpr auto kHeaderTimeout = std::chrono::seconds(30);   // a client has this long to send its headers
constexpr auto kBodyTimeout = std::chrono::seconds(120);    // ... and its body
constexpr auto kWriteTimeout = std::chrono::seconds(60);
constexpr auto kDrainTimeout = std::chrono::seconds(5);     // reading an unwanted body before closing
constexpr uint32_t kHeaderLimitBytes = 16 * 1024;  // the request line and every header together
constexpr size_t kTargetLimitBytes = 8 * 1024;     // the request target (path and query) alone
constexpr uint64_t kDrainLimitBytes = uint64_t{256} << 20;

HttpMethod to_method(http::verb v) {
  switch (v) {
    case http::verb::get: return HttpMethod::Get;
    case http::verb::head: return HttpMethod::Head;
    case http::verb::post: return HttpMethod::Post;
    case http::verb::options: return HttpMethod::Options;
    default: return HttpMethod::Other;
  }
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Site& site, WorkerPool* heavy_pool, int64_t busy_retry_after_s,
          const TrustedProxies& proxies)
      : stream_(std::move(socket)),
        site_(site),
        heavy_pool_(heavy_pool),
        busy_retry_after_s_(busy_retry_after_s),
        proxies_(proxies) {
    boost::system::error_code ec;
    auto endpoint = stream_.socket().remote_endpoint(ec);
    if (!ec) client_ = endpoint.address().to_string();
  }

  void start() { read_header(); }

 private:
  void read_header() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimitBytes);
    // No limit while reading the headers: Beast would refuse a large Content-Length with an
    // error before we could answer 401 or 413. The route's limit is set in on_header. Not
    // boost::none: Boost 1.74 compares the Content-Length with an empty optional as "greater"
    // and refuses every body.
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    stream_.expires_after(kHeaderTimeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec == http::error::header_limit) return refuse_oversized_head();
    if (ec) return close();  // end of stream between requests, timeout, or garbage
    const auto& req = parser_->get();
    if (req.target().size() > kTargetLimitBytes) {
      keep_alive_ = false;
      drain_ = !parser_->is_done();
      return respond(error_response(414, "uri_too_long",
                                    fmt::format("the URL is longer than the {} bytes this site reads", kTargetLimitBytes)));
    }
    request_ = SiteRequest{};
    request_.method = to_method(req.method());
    std::string_view target(req.target().data(), req.target().size());
    const size_t q = target.find('?');
    request_.path = percent_decode(target.substr(0, q), false);
    if (q != std::string_view::npos) request_.query = std::string(target.substr(q + 1));
    request_.authorization = std::string(req[http::field::authorization]);
    request_.content_type = std::string(req[http::field::content_type]);
    request_.host = std::string(req[http::field::host]);
    request_.cookie = std::string(req[http::field::cookie]);
    request_.accept_language = std::string(req[http::field::accept_language]);
    request_.client = client_;
    if (!proxies_.empty() && proxies_.trusts(client_)) {
      std::string forwarded;  // several X-Forwarded-For headers read as one list, in order
      for (const auto& f : boost::make_iterator_range(req.equal_range("X-Forwarded-For")))
        forwarded += (forwarded.empty() ? "" : ",") + std::string(f.value());
      request_.client = proxies_.client_of(client_, forwarded);
    }
    keep_alive_ = req.keep_alive();
    head_ = request_.method == HttpMethod::Head;

    std::optional<uint64_t> length;
    if (auto n = parser_->content_length()) length = *n;
    const auto limit = static_cast<uint64_t>(site_.body_limit(request_));
    std::optional<SiteResponse> rejected;
    if (Site::is_upload(request_)) rejected = site_.precheck_upload(request_, length);
    else if (length && *length > limit) rejected = site_.handle_oversize(request_);
    if (rejected) {
      // The body is not wanted: answer now, then drain and close (see finish()).
      keep_alive_ = false;
      drain_ = !parser_->is_done();
      return respond(std::move(*rejected));
    }
    // Beast checks a Content-Length against the limit only with the headers (done above); a
    // chunked body is counted against it while it is read.
    parser_->body_limit(limit);
    if (beast::iequals(req[http::field::expect], "100-continue") && !parser_->is_done()) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      stream_.expires_after(kWriteTimeout);
      asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                        [self = shared_from_this()](beast::error_code wec, size_t) {
                          if (wec) return self->close();
                          self->read_body();
                        });
      return;
    }
    read_body();
  }

  // The head went over kHeaderLimitBytes: 414 when the request line alone did (no line end
  // within the target limit), 431 otherwise. Answered, not dropped, then the rest is drained.
  void refuse_oversized_head() {
    const auto data = buffer_.data();
    const std::string_view received(static_cast<const char*>(data.data()), data.size());
    const size_t line_end = received.find("\r\n");
    keep_alive_ = false;
    drain_ = true;
    head_ = false;
    buffer_.consume(buffer_.size());
    if (line_end == std::string_view::npos || line_end > kTargetLimitBytes)
      return respond(error_response(414, "uri_too_long",
                                    fmt::format("the URL is longer than the {} bytes this site reads", kTargetLimitBytes)));
    respond(error_response(431, "headers_too_large",
                           fmt::format("the request's headers are larger than the {} bytes this site reads", kHeaderLimitBytes)));
  }

  void read_body() {
    stream_.expires_after(kBodyTimeout);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, size_t) { self->on_body(ec); });
  }

  void on_body(beast::error_code ec) {
    if (ec == http::error::body_limit) {
      keep_alive_ = false;
      drain_ = true;
      return respond(site_.handle_oversize(request_));
    }
    if (ec) return close();
    request_.body = std::move(parser_->get().body());
    parser_.reset();
    if (heavy_pool_ && Site::is_heavy(request_)) return answer_on_pool();
    respond(site_.handle(request_));
  }

  // A heavy request is answered on a worker; this connection does nothing meanwhile (no read
  // is pending), so request_ is the worker's alone until the answer is posted back to the
  // connection's strand. Each client's requests wait in their own line and the workers take the
  // lines in turn (WorkerPool), so one client's burst cannot starve another. A full queue is
  // answered 503 at once, here; a request that waited past heavy_max_wait_ms, 503 from the worker.
  void answer_on_pool() {
    auto answer = [self = shared_from_this()](bool expired) {
      SiteResponse r = expired ? self->site_.handle_busy(self->request_, self->busy_retry_after_s_)
                               : self->site_.handle(self->request_);
      asio::post(self->stream_.get_executor(),
                 [self, r = std::move(r)]() mutable { self->respond(std::move(r)); });
    };
    const bool queued =
        heavy_pool_->try_submit(request_.client, [answer] { answer(false); }, [answer] { answer(true); });
    if (!queued) respond(site_.handle_busy(request_, busy_retry_after_s_));
  }

  void respond(SiteResponse r) {
    response_.emplace();
    auto& res = *response_;
    res.version(11);
    res.result(static_cast<unsigned>(r.status));
    res.set(http::field::server, "speedmatrix");
    if (!r.content_type.empty()) res.set(http::field::content_type, r.content_type);  // 204 has none
    res.set(http::field::cache_control, "no-store");
    for (auto& [name, value] : r.headers) res.set(name, value);
    res.keep_alive(keep_alive_);
    const size_t length = r.body.size();
    if (!head_) res.body() = std::move(r.body);
    if (r.status != 204) res.content_length(length);  // HEAD: the length GET would send, no body
    stream_.expires_after(kWriteTimeout);
    http::async_write(stream_, res, [self = shared_from_this()](beast::error_code ec, size_t) { self->on_write(ec); });
  }

  void on_write(beast::error_code ec) {
    response_.reset();
    if (ec) return close();
    if (keep_alive_) return read_header();
    finish();
  }

  // Closing with unread request bytes makes the kernel send a reset, which can destroy the
  // response before the client reads it. So after an early answer: stop sending, read and
  // discard what the client still sends (bounded in time and bytes), then close.
  void finish() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (!drain_) return close();
    drained_ = 0;
    drain();
  }

  void drain() {
    stream_.expires_after(kDrainTimeout);
    stream_.async_read_some(asio::buffer(drain_buffer_), [self = shared_from_this()](beast::error_code ec, size_t n) {
      self->drained_ += n;
      if (ec || self->drained_ > kDrainLimitBytes) return self->close();
      self->drain();
    });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  Site& site_;
  WorkerPool* heavy_pool_;  ///< null: heavy requests are answered here like the others
  int64_t busy_retry_after_s_;
  const TrustedProxies& proxies_;  ///< whose X-Forwarded-For names the client
  std::string client_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
  SiteRequest request_;
  bool keep_alive_ = true;
  bool head_ = false;
  bool drain_ = false;
  uint64_t drained_ = 0;
  std::array<char, 64 * 1024> drain_buffer_{};
};

}  // namespace

struct SiteServer::Impl {
  Impl(Site& site, const SiteServerConfig& config, int threads)
      : site_(site), busy_retry_after_s_(config.busy_retry_after_s), proxies_(config.trusted_proxies), io_(threads) {
    if (config.heavy_threads > 0)
      heavy_pool_ = std::make_unique<WorkerPool>(
          config.heavy_threads, WorkerPool::Options{.max_queued = config.heavy_queue,
                                                    .max_wait_ns = config.heavy_max_wait_ms * 1'000'000,
                                                    .clock = config.heavy_clock});
  }

  Site& site_;
  int64_t busy_retry_after_s_;
  TrustedProxies proxies_;
  asio::io_context io_;
  // After io_: destroyed first, so the sessions its dropped tasks hold close their sockets
  // while the context still exists.
  std::unique_ptr<WorkerPool> heavy_pool_;
  tcp::acceptor acceptor_{io_};
  std::vector<std::thread> threads_;
  uint16_t port_ = 0;
  std::string host_;
  std::mutex stop_mutex_;
  bool stopped_ = false;

  void accept() {
    acceptor_.async_accept(asio::make_strand(io_), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
      if (!ec) std::make_shared<Session>(std::move(socket), site_, heavy_pool_.get(), busy_retry_after_s_, proxies_)->start();
      accept();  // also after transient errors such as EMFILE
    });
  }
};

SiteServer::SiteServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SiteServer::~SiteServer() { stop(); }

Result<std::unique_ptr<SiteServer>> SiteServer::start(Site& site, const SiteServerConfig& config) {
  const int threads = std::max(1, config.threads);
  auto impl = std::make_unique<Impl>(site, config, threads);
  const std::string host = config.host == "localhost" ? "127.0.0.1" : config.host;
  beast::error_code ec;
  asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) return fail(ErrorCode::InvalidArgument, fmt::format("listen address '{}' is not a numeric IP address", config.host));
  tcp::endpoint endpoint(address, config.port);
  auto& acceptor = impl->acceptor_;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail(ErrorCode::Network, fmt::format("cannot listen on {}:{}: {}", host, config.port, ec.message()));
  impl->port_ = acceptor.local_endpoint().port();
  impl->host_ = address.is_v6() ? "[" + host + "]" : host;
  impl->accept();
  Impl* raw = impl.get();
  for (int i = 0; i < threads; ++i) {
    impl->threads_.emplace_back([raw] {
      // Signals belong to the main thread (serve waits for SIGINT/SIGTERM there).
      sigset_t all;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, nullptr);
      raw->io_.run();
    });
  }
  return std::unique_ptr<SiteServer>(new SiteServer(std::move(impl)));
}

uint16_t SiteServer::port() const { return impl_->port_; }

std::string SiteServer::base_url() const { return fmt::format("http://{}:{}", impl_->host_, impl_->port_); }

HeavyCounts SiteServer::heavy_counts() const {
  if (!impl_->heavy_pool_) return {};
  const auto c = impl_->heavy_pool_->counts();
  return {c.running, c.queued, c.refused, c.expired};
}

void SiteServer::wait_for_heavy(const std::function<bool(const HeavyCounts&)>& done) const {
  if (!impl_->heavy_pool_) return;
  impl_->heavy_pool_->wait_until(
      [&](const WorkerPool::Counts& c) { return done(HeavyCounts{c.running, c.queued, c.refused, c.expired}); });
}

void SiteServer::stop() {
  std::lock_guard lock(impl_->stop_mutex_);
  if (impl_->stopped_) return;
  impl_->stopped_ = true;
  asio::post(impl_->io_, [raw = impl_.get()] {
    beast::error_code ec;
    raw->acceptor_.close(ec);
  });
  // Sessions hold no owner; stopping the context abandons their pending operations and the
  // context's destructor frees them. A handler already running completes first.
  impl_->io_.stop();
  for (auto& t : impl_->threads_)
    if (t.joinable()) t.join();
  // Then the heavy workers: a render under way finishes (its answer is posted to the stopped
  // context and never sent); the queued ones are dropped.
  if (impl_->heavy_pool_) impl_->heavy_pool_->stop();
}

}  // namespace sm::site
