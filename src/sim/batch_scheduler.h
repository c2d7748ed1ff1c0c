#pragma once
// The continuous-batching scheduler of the simulated engine, modelled on vLLM's V1 scheduler:
// one queue of running requests in priority (admission) order and one FCFS waiting queue; every
// step first gives each running request its next tokens (the rest of its prompt, chunked under a
// token budget, or one decode token), growing its KV blocks and preempting the lowest-priority
// running request (recompute) when the pool is full; then, if nothing was preempted, admits
// waiting requests while the budget, max_num_seqs and the KV pool allow (a request that does not
// fit blocks the ones behind it). A step's duration comes from the StepCostModel; its tokens are
// delivered when it completes.
//
// It knows nothing about time or sockets: the caller runs begin_step() / finish_step() pairs,
// waiting step_time_s between them (the server with a timer, tests in a plain loop).
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "sim/kv_block_pool.h"
#include "sim/request_sink.h"
#include "sim/sim_request_spec.h"
#include "sim/step_cost_model.h"

namespace sm::sim {

/// Engine limits, as vLLM's flags name them.
struct SchedulerConfig {
  int64_t kv_capacity_tokens = 0;        ///< KV pool size in tokens (rounded down to whole blocks)
  int32_t block_size = 16;               ///< tokens per KV block
  int32_t max_num_seqs = 256;            ///< running requests at most
  int32_t max_num_batched_tokens = 2048; ///< tokens (prefill + decode) one step may compute
  bool enable_prefix_caching = true;     ///< share full prompt blocks between requests
  /// Speculative decoding (vLLM's num_speculative_tokens): each decode step also verifies up to
  /// this many draft tokens per request, each accepted with spec_accept_rate until the first that
  /// is not; the step yields 1 + accepted tokens. 0: none. The step's duration is unchanged (a
  /// memory-bound step reads the weights once however many tokens it verifies).
  int32_t spec_tokens = 0;
  double spec_accept_rate = 0;           ///< per draft token, 0..1
};

/// Counters since start; gauges at the time of the call.
struct SchedulerStats {
  int64_t steps = 0;                   ///< steps completed
  double busy_s = 0;                   ///< sum of completed steps' modelled durations
  int64_t requests_added = 0;          ///< requests accepted by add()
  int64_t requests_finished_length = 0;  ///< finished at max_tokens
  int64_t requests_finished_stop = 0;    ///< finished at EOS
  int64_t requests_aborted = 0;        ///< aborted (client went away); not counted as finished
  int64_t prompt_tokens = 0;           ///< prompt tokens of requests that produced a first token
  int64_t generation_tokens = 0;       ///< output tokens produced
  int64_t prefill_tokens_computed = 0; ///< prompt (and recomputed) tokens actually computed;
                                       ///< prompt_tokens minus prefix-cache hits, plus recompute
  int64_t preemptions = 0;             ///< running requests preempted (recompute) for KV space
  int64_t prefix_cache_queries = 0;    ///< tokens looked up in the prefix cache at admission
  int64_t prefix_cache_hits = 0;       ///< of those, tokens found cached
  int64_t spec_drafts = 0;             ///< speculative: drafts verified (one per decode step and request)
  int64_t spec_draft_tokens = 0;       ///< ... draft tokens proposed in them
  int64_t spec_accepted_tokens = 0;    ///< ... of those, accepted (the step's extra tokens)
  int32_t running = 0;                 ///< requests in the running queue (prefilling or decoding)
  int32_t waiting = 0;                 ///< requests waiting for admission (incl. preempted ones)
  int32_t max_running = 0;             ///< highest `running` once a step was composed
  int32_t max_waiting = 0;             ///< highest `waiting` once a step was composed
  int32_t num_blocks = 0;              ///< KV pool size in blocks
  int32_t free_blocks = 0;             ///< blocks no request holds (cached ones included)
  double kv_usage = 0;                 ///< 1 - free_blocks / num_blocks
};

/// Handle of a request inside the scheduler.
using RequestId = uint64_t;

/// Not thread-safe: every method runs on one thread (the server's I/O thread).
class BatchScheduler {
 public:
  /// config.kv_capacity_tokens >= config.block_size. `cost` must outlive the scheduler.
  BatchScheduler(const SchedulerConfig& config, const StepCostModel& cost);
  ~BatchScheduler();
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;

  /// Queues a request (it joins the next step that has room). spec.prompt_tokens > 0 and the
  /// prompt plus max_tokens must fit the KV pool (the server checks max_model_len <= capacity).
  /// `sink` receives its tokens and must stay valid until its last update or abort(). A `held`
  /// request waits outside the queue until release() (the API server is still working on it).
  RequestId add(SimRequestSpec spec, RequestSink* sink, bool held = false);
  /// Moves a held request to the back of the waiting queue. Unknown ids are ignored.
  void release(RequestId id);
  /// Drops a request: its sink is never called again and its blocks are freed at once, or when
  /// the step in flight completes. Unknown or finished ids are ignored.
  void abort(RequestId id);
  /// Aborts every request (server shutdown).
  void abort_all();

  /// True when a step could run: requests are running or waiting.
  bool has_work() const { return !running_.empty() || !waiting_.empty(); }
  /// True between begin_step() and finish_step().
  bool step_in_flight() const { return in_flight_; }
  /// Composes the next step and returns its modelled duration in seconds; nullopt when nothing
  /// can be scheduled. Precondition: !step_in_flight().
  std::optional<double> begin_step();
  /// Completes the step begun last: advances every scheduled request, calls the sinks of those
  /// that produced a token and retires finished ones. Precondition: step_in_flight().
  void finish_step();

  /// Counters and gauges now.
  SchedulerStats stats() const;
  /// Duration of the step in flight (or the last one), seconds.
  double last_step_s() const { return last_step_s_; }
  /// Decode streams and prefill tokens of the step in flight (or the last one).
  int32_t last_step_decodes() const { return static_cast<int32_t>(decode_contexts_.size()); }
  int64_t last_step_prefill_tokens() const { return prefill_total_; }
  /// StepBatch::shared_prefix_tokens of the step in flight (or the last one).
  int64_t last_step_shared_prefix_tokens() const { return shared_prefix_tokens_; }

 private:
  struct Request;

  Request* lookup(RequestId id) const;
  void schedule_tokens(Request& r, int64_t num_new);
  void preempt(Request& r);
  void retire(Request& r);
  void purge_aborted();
  int64_t shared_prefix_tokens();

  SchedulerConfig config_;
  const StepCostModel& cost_;
  KvBlockPool pool_;
  std::vector<std::unique_ptr<Request>> slots_;  ///< every request object ever made (reused)
  std::vector<uint32_t> free_slots_;              ///< indices of unused slots_
  std::vector<Request*> running_;                 ///< running queue, highest priority first
  std::deque<Request*> waiting_;                  ///< FCFS; preempted requests go to the front
  std::vector<Request*> scheduled_;               ///< requests in the step in flight
  std::vector<int64_t> decode_contexts_;          ///< cost-model input of the step in flight
  std::vector<Request*> decode_requests_;         ///< the streams behind decode_contexts_
  std::vector<PrefillChunk> prefill_chunks_;      ///< cost-model input of the step in flight
  int64_t prefill_total_ = 0;                     ///< sum of prefill_chunks_ tokens
  int64_t shared_prefix_tokens_ = 0;              ///< cost-model input of the step in flight
  uint64_t shared_prefix_set_ = 0;                ///< signature of the decode set it was computed for
  bool in_flight_ = false;
  bool has_aborted_running_ = false;              ///< some running request awaits purge
  double last_step_s_ = 0;
  SchedulerStats stats_;                          ///< counters (gauges filled by stats())
};

}  // namespace sm::sim
