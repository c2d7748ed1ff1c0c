#pragma once
// Event-driven HTTP streaming client: one libcurl multi handle and one epoll loop drive any
// number of concurrent streaming requests on the calling thread.
//
// Thread model: every method except wake() must be called on the thread that calls run_until();
// handler callbacks run on that thread too, inside run_until(). start() and cancel() may be
// called from handler callbacks: they take effect when the callback returns.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "net/connection_options.h"

namespace sm {

/// One HTTP request. A non-empty body makes it a POST with JSON content type.
struct HttpRequest {
  std::string url;                   ///< full URL, e.g. "http://127.0.0.1:8000/v1/completions"
  std::string body;                  ///< JSON body; empty = GET
  std::vector<std::string> headers;  ///< extra "Name: value" lines (e.g. Authorization)
};

/// How a transfer ended.
struct TransferEnd {
  bool ok = false;          ///< transport completed and the status was 2xx
  bool cancelled = false;   ///< ended by cancel() / cancel_all(); no other field is meaningful
  long http_status = 0;     ///< 0 when no response arrived
  ErrorCode error_code = ErrorCode::Internal;  ///< when !ok: Network, Timeout, Http, Protocol
  std::string error;        ///< when !ok: human description
  std::string error_body;   ///< when the status was not 2xx: the start of the body (bounded)
  int64_t bytes_rx = 0;     ///< body bytes received
};

/// Receives what streams deliver. Called on the loop thread.
class StreamHandler {
 public:
  virtual ~StreamHandler() = default;
  /// One SSE event's data of request `id`, stamped when its bytes reached the client.
  /// Return false to abort the request (it then ends with a Protocol error `abort_reason`).
  virtual bool on_event(uint64_t id, int64_t t_ns, std::string_view data) = 0;
  /// The request ended (normally, by error, or cancelled). Called exactly once per start().
  virtual void on_end(uint64_t id, int64_t t_ns, const TransferEnd& end) = 0;
};

/// The client loop's default busy-poll window (StreamClientOptions::busy_poll_ns).
constexpr int64_t kDefaultBusyPollNs = 100'000;

struct StreamClientOptions {
  double connect_timeout_s = 10;     ///< TCP (and TLS) connect limit
  double read_timeout_s = 600;       ///< a stream that receives nothing for this long fails
  size_t max_event_bytes = 1 << 20;  ///< longest SSE line/event accepted (hostile-server bound)
  size_t max_error_body_bytes = 64 << 10;  ///< kept from a non-2xx body
  bool verbose = false;              ///< libcurl debug output on stderr
  /// Poll without sleeping for up to this long after a read while reads come closer together
  /// than that (net/busy_poll.h): keeps wake-up delays out of the stamps. 0 = always sleep.
  int64_t busy_poll_ns = kDefaultBusyPollNs;
  /// TLS, proxy, extra headers, and HTTP/2: with connection.http2 the streams to one server share
  /// connections (multiplexed, up to the server's stream limit) instead of one each.
  ConnectionOptions connection;
};

class StreamClient {
 public:
  StreamClient(const Clock& clock, StreamHandler& handler, StreamClientOptions options = {});
  ~StreamClient();
  StreamClient(const StreamClient&) = delete;
  StreamClient& operator=(const StreamClient&) = delete;

  /// Queues a request; it is handed to libcurl at once (or after the current callback).
  /// `id` must be unique among active requests. Returns the time it was handed over.
  int64_t start(uint64_t id, HttpRequest request);
  /// Aborts a request; on_end(cancelled=true) follows. Unknown ids are ignored.
  void cancel(uint64_t id);
  /// Aborts every active request.
  void cancel_all();
  /// Requests in flight (started and not yet ended).
  size_t active() const;

  /// Drives transfers until `deadline_ns` passes, stop() is called, or nothing is active.
  void run_until(int64_t deadline_ns);
  /// Makes run_until() return soon. Async-signal-safe and callable from any thread.
  void wake();
  /// Asks run_until() to return after the current callback; cleared by the next run_until().
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sm
