#pragma once
// The driver: keeps N identical streams in flight (a closed loop: a finished stream is replaced
// at once), stamps every token-bearing chunk, opens the measurement window when every stream
// slot has produced a token, and closes it after the cell's duration. The same machinery runs
// single cold requests (prefill rows and warm-ups): one slot, no replacement; and bursts: a fixed
// number of requests through N slots, timed from the first send to the last end.
//
// Thread model: everything runs on the calling thread, inside one StreamClient event loop.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/stream_recording.h"
#include "core/clock.h"
#include "engines/chunk_parser.h"
#include "metrics/cell_metrics.h"
#include "metrics/request_record.h"
#include "net/stream_client.h"

namespace sm {

struct LoopSpec {
  HttpRequest request;             ///< sent by every stream (identical prompt: shared prefix cache)
  int64_t concurrency = 1;         ///< stream slots kept busy
  int64_t max_tokens = 1;          ///< output tokens each request asks for (for early-end checks)
  int64_t duration_ns = 0;         ///< window length; 0 = single shot: each slot runs one request
  int64_t total_requests = 0;      ///< burst (duration_ns 0): replace finished streams until this many
                                   ///< were sent in all, then wait for the last to end
  int64_t ramp_timeout_ns = 0;     ///< window opens at the latest this long after the start
  int64_t max_failures = 0;        ///< the cell fails after this many failed requests (0 = 4N + 16)
  int64_t request_timeout_ns = 0;  ///< single shot: requests still running this long after the
                                   ///< start are cut and failed (0 = no limit but the read timeout)
  std::function<void()> on_tick;   ///< called about every 250 ms while the loop runs (progress line)
  /// Adaptive windows (run --precision): asked every 100 ms while the window is open, with the
  /// records so far and the window up to now; true closes the window there. (A second's count is
  /// known a chunk gap after it ends: asked once a second, a window would close up to a second late.)
  std::function<bool(const std::vector<RequestRecord>&, DecodeWindow)> window_settled;
  /// Mixed prefill (run --mixed-prefill; bench/mixed_prefill_phase.h): one more request, sent
  /// `intruder_after_ns` after the window opens, on slot `concurrency` (never replaced; the
  /// window's opening does not wait for it). The window then closes `intruder_tail_ns` after its
  /// first token (or its end), or `request_timeout_ns` (default 600 s) plus the tail after its
  /// send when no token comes; `duration_ns` is ignored.
  std::optional<HttpRequest> intruder;
  int64_t intruder_max_tokens = 1;
  int64_t intruder_after_ns = 0;
  int64_t intruder_tail_ns = 0;
};

struct LoopOutcome {
  std::vector<RequestRecord> records;  ///< every request of the cell, in start order
  DecodeWindow window;                 ///< [begin, end) when it opened; zero-length otherwise
  bool window_opened = false;          ///< every slot produced a token (or the ramp timeout hit)
  bool ramp_timed_out = false;         ///< opened by the ramp timeout, not by the last first token
  bool interrupted = false;            ///< Ctrl-C arrived
  bool request_timed_out = false;      ///< single shot: request_timeout_ns passed (its record says so)
  bool closed_early = false;           ///< window_settled closed the window before duration_ns
  std::optional<Error> error;          ///< the cell as a whole failed (too many failed requests)
};

class ClosedLoop final : public StreamHandler {
 public:
  ClosedLoop(const Clock& clock, StreamClientOptions options);
  ~ClosedLoop() override;

  /// Runs one cell (or single shot) to completion. Not reentrant.
  LoopOutcome run(const LoopSpec& spec);

  bool on_event(uint64_t id, int64_t t_ns, std::string_view data) override;
  void on_end(uint64_t id, int64_t t_ns, const TransferEnd& end) override;

 private:
  void start_request(int32_t slot);
  void start_request(int32_t slot, const HttpRequest& request, int64_t max_tokens);
  void start_intruder(int64_t t_ns);
  bool is_intruder(int32_t slot) const { return spec_->intruder && slot == spec_->concurrency; }
  /// The window closes `intruder_tail_ns` after t_ns (the intruder's first token or end), if sooner.
  void close_window_after_intruder(int64_t t_ns);
  void scale_uncounted_streams();
  void maybe_open_window(int64_t t_ns);

  const Clock& clock_;
  /// The requests' text is checked on its thread (declared before the client, which may end
  /// streams as it goes).
  OutputCheckWorker output_checks_;
  StreamClient client_;
  ChunkParser parser_;
  ChunkInfo chunk_;
  const LoopSpec* spec_ = nullptr;
  LoopOutcome outcome_;
  std::unordered_map<uint64_t, size_t> index_of_;  ///< request id -> position in outcome_.records
  /// How each request's stream is counted (bench/stream_recording.h, shared with the open loop);
  /// parallel to outcome_.records.
  std::vector<StreamRecording> recordings_;
  std::vector<int64_t> slot_first_token_ns_;       ///< first token time of each slot; -1 = none yet
  int64_t slots_with_token_ = 0;
  int64_t failures_ = 0;
  bool closing_ = false;                           ///< no more replacements
  std::string cut_error_;                          ///< non-empty: streams cancelled now have failed
  uint64_t next_id_ = 1;
  bool intruder_sent_ = false;
  bool intruder_done_ = false;  ///< its first token (or end) came: the window's end is set
};

}  // namespace sm
