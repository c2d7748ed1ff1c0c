#pragma once
// The results site's HTTP/1.1 server (Boost.Beast): keep-alive, a pool of I/O threads, request
// timeouts, and the early answers of an upload (401, 413, 429) sent after its headers, before
// its body is read. Each request is answered by Site::handle on the thread that read it; a
// handler's store call blocks only that thread.
//
//   auto server = sm::site::SiteServer::start(site, {.host = "127.0.0.1", .port = 0});
//   std::string url = (*server)->base_url();   // "http://127.0.0.1:41234"
//   (*server)->stop();                         // also done by the destructor
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "site/site.h"

namespace sm::site {

struct SiteServerConfig {
  std::string host = "127.0.0.1";  ///< numeric address to listen on
  uint16_t port = 8080;            ///< 0: any free port
  int threads = 4;                 ///< I/O threads (each may block on the store for one request)
};

class SiteServer {
 public:
  /// Binds and starts the threads. `site` must outlive the server. Fails when the address
  /// cannot be bound.
  static Result<std::unique_ptr<SiteServer>> start(Site& site, const SiteServerConfig& config);

  ~SiteServer();
  SiteServer(const SiteServer&) = delete;
  SiteServer& operator=(const SiteServer&) = delete;

  /// The bound port. Thread-safe.
  uint16_t port() const;
  /// "http://host:port". Thread-safe.
  std::string base_url() const;
  /// Stops accepting, ends every connection and joins the threads; a request being handled
  /// finishes first (its store transaction commits or not, never half). Idempotent; not from
  /// a server thread.
  void stop();

 private:
  struct Impl;
  explicit SiteServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sm::site
