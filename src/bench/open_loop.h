#pragma once
// The open-loop driver of `speedmatrix sweep`: sends each request at its scheduled time whatever
// the requests before it are doing (arrivals do not wait for answers), stamps every token-bearing
// chunk, and keeps each request's intended start beside its record so every latency counts from
// the schedule (docs/METRICS.md, "Coordinated omission"). A request whose time has passed when
// the loop gets to it — the client was busy, or its thread was not scheduled — is sent at once,
// with its intended start unchanged.
//
// Thread model: everything runs on the calling thread, inside one StreamClient event loop; the
// time between arrivals with nothing in flight is spent in `idle_wait` (a sleep by default).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <unordered_map>
#include <vector>

#include "bench/stream_recording.h"
#include "core/clock.h"
#include "engines/chunk_parser.h"
#include "metrics/rate_metrics.h"
#include "net/stream_client.h"

namespace sm {

/// One request of the schedule.
struct PlannedRequest {
  int64_t at_ns = 0;        ///< intended start, from the schedule's start
  HttpRequest request;
  int64_t max_tokens = 1;   ///< output tokens it asks for
  /// Sessions (bench/sessions_phase.h): the index of a request that must end first (this one's
  /// intended start is then the later of at_ns and that end); -1 = none.
  int64_t after = -1;
  bool keep_text = false;   ///< keep its answer's text (OpenLoopOutcome::answers) for a later request
};

/// Builds a request that waits for another just before it is sent, from the answers kept so far
/// (parallel to the schedule; "" where not kept or not yet ended).
using PrepareRequest = std::function<HttpRequest(size_t index, const std::vector<std::string>& answers)>;

struct OpenLoopSpec {
  std::vector<PlannedRequest> requests;  ///< in schedule order (at_ns ascending)
  int64_t drain_timeout_ns = 0;          ///< after the last arrival, longest wait for answers still
                                         ///< running (then cut and failed); 0 = no limit
  std::function<void()> on_tick;         ///< called about every 250 ms (progress line)
  PrepareRequest prepare;                ///< set: makes each request with `after` >= 0 when it is sent
};

struct OpenLoopOutcome {
  /// Every request sent, in the order sent: schedule order unless a request waited for another
  /// (then record.slot is its index in the schedule).
  std::vector<TimedRequest> requests;
  std::vector<std::string> answers;    ///< parallel to the schedule: the text of those with keep_text
  int64_t start_ns = 0;                ///< the schedule's zero on the loop's clock
  bool interrupted = false;            ///< Ctrl-C arrived; requests not sent yet were dropped
  bool drain_timed_out = false;        ///< answers were still running at the drain timeout
};

/// Waits until `deadline_ns` on the loop's clock (or less: the loop checks again).
using ArrivalWait = std::function<void(int64_t deadline_ns)>;

/// Sleeps in slices of at most 5 ms until the deadline or Ctrl-C.
void sleep_until(const Clock& clock, int64_t deadline_ns);

class OpenLoop final : public StreamHandler {
 public:
  /// `idle_wait` empty: sleep_until on `clock`.
  OpenLoop(const Clock& clock, StreamClientOptions options, ArrivalWait idle_wait = {});
  ~OpenLoop() override;

  /// Runs one schedule to its end (every request answered, failed, or cut by the drain timeout).
  OpenLoopOutcome run(const OpenLoopSpec& spec);

  bool on_event(uint64_t id, int64_t t_ns, std::string_view data) override;
  void on_end(uint64_t id, int64_t t_ns, const TransferEnd& end) override;

 private:
  void send(size_t index, int64_t intended_ns);
  /// Requests whose time is known (no wait, or what they waited for ended), earliest first.
  using Ready = std::pair<int64_t, size_t>;

  const Clock& clock_;
  /// The requests' text is checked on its thread (declared before the client, which may end
  /// streams as it goes).
  OutputCheckWorker output_checks_;
  StreamClient client_;
  ArrivalWait idle_wait_;
  ChunkParser parser_;
  ChunkInfo chunk_;
  const OpenLoopSpec* spec_ = nullptr;
  OpenLoopOutcome outcome_;
  std::vector<StreamRecording> recordings_;         ///< parallel to outcome_.requests
  std::unordered_map<uint64_t, size_t> index_of_;   ///< request id -> position in outcome_.requests
  std::vector<Ready> ready_;                        ///< a min-heap on (intended start, index)
  std::vector<std::vector<size_t>> waiting_on_;     ///< schedule index -> the requests waiting for it
  int64_t start_ns_ = 0;
  std::string cut_error_;                           ///< set: cancelled streams failed for this reason
  uint64_t next_id_ = 1;
};

}  // namespace sm
