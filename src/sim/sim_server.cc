#include "sim/sim_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <future>
#include <mutex>
#include <thread>

#include "sim/http_session.h"
#include "sim/linear_cost_model.h"
#include "sim/sim_engine.h"

namespace sm::sim {

namespace asio = boost::asio;
using asio::ip::tcp;

struct SimServer::Impl {
  // Declaration order is destruction order reversed: sessions still queued in io_ handlers are
  // destroyed with io_ and unregister from sessions_, so sessions_ outlives io_; the engine
  // (timer) and acceptor go before io_.
  SessionRegistry sessions_;
  asio::io_context io_{1};
  std::unique_ptr<SimEngine> engine_;
  tcp::acceptor acceptor_{io_};
  std::thread thread_;
  uint16_t port_ = 0;
  std::string host_;
  std::string model_id_;
  SimConfig config_;
  std::mutex stop_mutex_;
  bool stopped_ = false;
  SimStats final_stats_;

  void accept() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
      if (!ec) std::make_shared<HttpSession>(std::move(socket), *engine_, sessions_)->start();
      accept();  // also after transient errors such as EMFILE
    });
  }

  // Runs on the I/O thread: ends every request and connection, then lets run() return.
  void shutdown() {
    final_stats_ = engine_->stats();
    engine_->shutdown();
    boost::system::error_code ec;
    acceptor_.close(ec);
    std::vector<std::shared_ptr<HttpSession>> open;
    open.reserve(sessions_.size());
    for (HttpSession* s : sessions_) open.push_back(s->shared_from_this());
    for (auto& s : open) s->force_close();
    open.clear();
    io_.stop();
  }
};

SimServer::SimServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SimServer::~SimServer() { stop(); }

Result<std::unique_ptr<SimServer>> SimServer::start(SimConfig config) {
  if (auto ok = config.validate(); !ok) return std::unexpected(ok.error());
  if (!config.cost_model) config.cost_model = std::make_shared<LinearCostModel>(LinearCostParams{});
  auto impl = std::make_unique<Impl>();
  std::string host = config.listen_host == "localhost" ? "127.0.0.1" : config.listen_host;
  boost::system::error_code ec;
  asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) return fail(ErrorCode::InvalidArgument, fmt::format("listen address '{}' is not a numeric IP address", config.listen_host));
  tcp::endpoint endpoint(address, config.port);
  auto& acceptor = impl->acceptor_;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return fail(ErrorCode::Network, fmt::format("cannot listen on {}:{}: {}", host, config.port, ec.message()));
  impl->port_ = acceptor.local_endpoint().port();
  impl->host_ = address.is_v6() ? "[" + host + "]" : host;
  impl->model_id_ = config.model_id();
  impl->config_ = config;
  impl->engine_ = std::make_unique<SimEngine>(impl->io_, std::move(config));
  impl->accept();
  Impl* raw = impl.get();
  impl->thread_ = std::thread([raw] {
    // Signals belong to the embedding program's main thread (Ctrl-C handling in `run`).
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    raw->io_.run();
  });
  return std::unique_ptr<SimServer>(new SimServer(std::move(impl)));
}

uint16_t SimServer::port() const { return impl_->port_; }

std::string SimServer::base_url() const { return fmt::format("http://{}:{}", impl_->host_, impl_->port_); }

const std::string& SimServer::model_id() const { return impl_->model_id_; }

const SimConfig& SimServer::config() const { return impl_->config_; }

SimStats SimServer::stats() const {
  std::lock_guard lock(impl_->stop_mutex_);
  if (impl_->stopped_) return impl_->final_stats_;
  std::promise<SimStats> result;
  auto future = result.get_future();
  asio::post(impl_->io_, [this, &result] { result.set_value(impl_->engine_->stats()); });
  return future.get();
}

void SimServer::stop() {
  std::lock_guard lock(impl_->stop_mutex_);
  if (impl_->stopped_) return;
  impl_->stopped_ = true;
  Impl* raw = impl_.get();
  asio::post(impl_->io_, [raw] { raw->shutdown(); });
  if (impl_->thread_.joinable()) impl_->thread_.join();
}

}  // namespace sm::sim
