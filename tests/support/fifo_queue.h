#pragma once
// A server that answers one request at a time, first come first served, with a known service
// time: prefill, then `tokens` tokens `interval` apart. Its saturation rate is 1 / service time.
// Two forms: records computed from arrival times (no network, exact), and a StreamScript picker
// that makes the scripted server behave so (each request waits for the ones before it).
#include <cstdint>
#include <mutex>
#include <vector>

#include "metrics/rate_metrics.h"
#include "support/scripted_server.h"

namespace sm::test {

struct FifoService {
  int64_t prefill_ns = 14 * kNsPerMs;
  int64_t interval_ns = 2 * kNsPerMs;
  int64_t tokens = 4;
  /// Time the server is busy with one request.
  int64_t service_ns() const { return prefill_ns + (tokens - 1) * interval_ns; }
  double capacity_rps() const { return 1e9 / static_cast<double>(service_ns()); }
};

/// The records such a server produces for requests arriving (and sent) at `arrivals_ns`.
std::vector<TimedRequest> fifo_records(const std::vector<int64_t>& arrivals_ns, const FifoService& service);

/// A ScriptedServerOptions::script that queues requests behind each other (thread-safe).
class FifoScript {
 public:
  explicit FifoScript(FifoService service) : service_(service) {}
  StreamScript pick(const RequestInfo& info);

 private:
  FifoService service_;
  std::mutex mu_;
  int64_t busy_until_ns_ = 0;
};

}  // namespace sm::test
