#pragma once
// The engine half of the simulated server: the scheduler driven by a timer on the server's
// io_context, the shared parser/formatter, and the /metrics text. Internal to src/sim; the public
// API is SimServer.
//
// Time: step k starts when step k-1 is due and is due step_time_s later (virtual time laid on
// the steady clock), so the tokens a client sees arrive at the modelled rate even when the timer
// fires a little late: the next step is scheduled from the due time, not from when the
// callback ran. A loop more than max_lag_s behind restarts from now and counts a resync.
//
// Arrivals: like vLLM's API server, requests are processed one at a time before the engine sees
// them (StepCostModel::request_cpu_time_s each); a request is held in the scheduler until its
// turn ends, then released into the waiting queue.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "sim/batch_scheduler.h"
#include "sim/chunk_formatter.h"
#include "sim/request_parser.h"
#include "sim/sim_config.h"
#include "sim/sim_stats.h"

namespace sm::sim {

/// Not thread-safe: every method runs on the io_context's (single) thread.
class SimEngine {
 public:
  /// `config` must be valid and carry a cost model.
  SimEngine(boost::asio::io_context& io, SimConfig config);

  const SimConfig& config() const { return config_; }
  const ModelLimits& limits() const { return limits_; }
  const ChunkFormatter& formatter() const { return formatter_; }
  RequestParser& parser() { return parser_; }

  /// Queues a request and starts stepping if the engine was idle.
  RequestId submit(SimRequestSpec spec, RequestSink* sink);
  /// Drops a request (client gone); see BatchScheduler::abort.
  void abort(RequestId id) { scheduler_.abort(id); }
  /// Aborts everything and stops the timer (server shutdown).
  void shutdown();
  /// A new number for response ids.
  uint64_t next_request_number() { return ++request_numbers_; }

  /// Prometheus text exposition of /metrics.
  std::string metrics_text() const;
  /// Everything counted so far.
  SimStats stats() const;

  void on_connection_opened() { ++stats_.connections_accepted, ++stats_.connections_open; }
  void on_connection_closed() { --stats_.connections_open; }
  void on_http_request() { ++stats_.http_requests; }

 private:
  void start_step(int64_t start_ns);
  void on_step_due();
  void arm_arrival_timer();
  void on_arrivals_due();

  /// A request the API server is still working on.
  struct Arrival {
    int64_t due_ns = 0;  ///< steady-clock time it reaches the scheduler
    RequestId id = 0;    ///< held in the scheduler until then
  };

  SimConfig config_;
  ModelLimits limits_;
  ChunkFormatter formatter_;
  RequestParser parser_;
  BatchScheduler scheduler_;
  boost::asio::steady_timer timer_;
  boost::asio::steady_timer arrival_timer_;
  std::deque<Arrival> arrivals_;  ///< in due order
  int64_t api_free_ns_ = 0;       ///< when the API server finishes the requests it has
  int64_t step_due_ns_ = 0;     ///< steady-clock time the step in flight completes
  uint64_t request_numbers_ = 0;
  bool stopping_ = false;
  SimStats stats_;              ///< loop and connection counters (scheduler's filled in stats())
};

}  // namespace sm::sim
