#pragma once
// The simulated engine as an embeddable HTTP server: vLLM's OpenAI-compatible routes, a
// continuous-batching scheduler whose steps take what the StepCostModel says, a paged KV pool
// with prefix caching, and /metrics in vLLM's names. Everything it serves says it is simulated.
//
/// Example:
///   sm::sim::SimConfig config;                    // defaults: loopback, port 0
///   config.cost_model = my_cost_model;            // null: LinearCostModel defaults
///   auto server = sm::sim::SimServer::start(config);
///   if (!server) return fail(server.error());
///   std::string url = (*server)->base_url();      // "http://127.0.0.1:41234"
///   ...                                           // point a client at url
///   (*server)->stop();                            // also done by the destructor
//
// Thread model: one I/O thread runs an io_context with the acceptor, every connection and the
// scheduler's step timer, so the engine needs no locks; the public methods below may be called
// from any other thread.
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "sim/sim_config.h"
#include "sim/sim_stats.h"

namespace sm::sim {

class SimServer {
 public:
  /// Validates the config, binds host:port (port 0 = any free port) and starts the I/O thread.
  /// Fails with InvalidArgument for a bad config and Network when the address cannot be bound.
  static Result<std::unique_ptr<SimServer>> start(SimConfig config);

  ~SimServer();
  SimServer(const SimServer&) = delete;
  SimServer& operator=(const SimServer&) = delete;

  /// The bound port. Thread-safe.
  uint16_t port() const;
  /// "http://<host>:<port>" (no trailing slash). Thread-safe.
  std::string base_url() const;
  /// The served model id (says "simulated"). Thread-safe.
  const std::string& model_id() const;
  /// The configuration in force (cost model included). Thread-safe.
  const SimConfig& config() const;
  /// Counters now; after stop(), the counters at stop. Thread-safe, but not from the server's
  /// own thread (it waits for that thread).
  SimStats stats() const;
  /// Closes every connection, aborts every request and joins the I/O thread. Idempotent.
  /// Thread-safe, but not from the server's own thread.
  void stop();

 private:
  struct Impl;
  explicit SimServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sm::sim
