#pragma once
// The results site's HTTP/1.1 server (Boost.Beast): keep-alive, a pool of I/O threads, request
// timeouts, and the early answers of an upload (401, 413, 429) sent after its headers, before
// its body is read. A cheap request is answered by Site::handle on the I/O thread that read it;
// a heavy one (Site::is_heavy: a run page, a comparison, the calculator) is handed to a small
// worker pool with a bounded queue, so health checks and the leaderboard never wait behind
// sixteen renders of a 1,000-cell run; when that queue is full the heavy request is answered
// 503 with Retry-After at once.
//
//   auto server = sm::site::SiteServer::start(site, {.host = "127.0.0.1", .port = 0});
//   std::string url = (*server)->base_url();   // "http://127.0.0.1:41234"
//   (*server)->stop();                         // also done by the destructor
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/error.h"
#include "site/site.h"
#include "site/trusted_proxies.h"

namespace sm::site {

struct SiteServerConfig {
  std::string host = "127.0.0.1";  ///< numeric address to listen on
  uint16_t port = 8080;            ///< 0: any free port
  int threads = 4;                 ///< I/O threads (each may block on the store for one cheap request)
  /// Workers for the heavy requests (each may block on the store for one); 0: none, heavy
  /// requests are answered on the I/O threads like the others.
  int heavy_threads = 2;
  /// Heavy requests waiting for a worker at most, all clients together; more → 503 at once. A
  /// burst of 150 run pages (about 0.1 s of work) is queued, not refused.
  size_t heavy_queue = 1024;
  /// A heavy request that waited longer for a worker is answered 503 instead of made (0: no
  /// limit): a queue is a short wait, never a long one.
  int64_t heavy_max_wait_ms = 5000;
  const Clock* heavy_clock = nullptr;  ///< measures that wait (tests); null: the steady clock
  int64_t busy_retry_after_s = 1;  ///< the Retry-After of that 503
  /// Load balancers or reverse proxies in front of the site (`serve --trusted-proxy`): a request
  /// from one of them is from the client its X-Forwarded-For names (SiteRequest::client, the
  /// key of the calculator's per-client rate limit). Empty: the peer address is the client.
  TrustedProxies trusted_proxies;
};

/// What the server's heavy-request pool is doing (tests, monitoring).
struct HeavyCounts {
  size_t running = 0;    ///< heavy requests being answered
  size_t queued = 0;     ///< heavy requests waiting for a worker
  uint64_t refused = 0;  ///< heavy requests answered 503 for want of room, since the start
  uint64_t expired = 0;  ///< heavy requests answered 503 after waiting past heavy_max_wait_ms
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
  /// The heavy-request pool now; all zero without one. Thread-safe.
  HeavyCounts heavy_counts() const;
  /// Blocks until `done` holds for the heavy-request pool's counts (checked at every change;
  /// returns at once without a pool). For tests: no polling. Thread-safe.
  void wait_for_heavy(const std::function<bool(const HeavyCounts&)>& done) const;

  /// Stops accepting, ends every connection and joins the threads; a request being handled
  /// finishes first (its store transaction commits or not, never half); heavy requests still
  /// queued are dropped with their connections. Idempotent; not from a server thread.
  void stop();

 private:
  struct Impl;
  explicit SiteServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sm::site
