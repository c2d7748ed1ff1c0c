#pragma once
// How one streamed answer becomes a RequestRecord: each parsed chunk's tokens (cumulative usage,
// llama.cpp timings, token ids, or one per chunk reconciled with the final usage), the finish
// reason, and how the request ended. The one implementation of a request's accounting, for the
// closed loop (bench/closed_loop.cc: the matrix) and the open loop (bench/open_loop.cc: sweeps);
// docs/METRICS.md, "Token counts". Each chunk's text is handed to the output checks, which run on
// their own thread (metrics/output_check_worker.h: loops, text that is not text); the loop that
// owns the worker puts their verdicts on the records (apply_output_verdicts) once it drains it.
#include <algorithm>
#include <cstdint>
#include <span>

#include "engines/chunk_parser.h"
#include "metrics/output_check_worker.h"
#include "metrics/request_record.h"
#include "net/stream_client.h"

namespace sm {

/// Tokens past which a request has clearly not honoured max_tokens (a little slack for servers
/// that count a final token or two differently).
inline int64_t overrun_limit(int64_t max_tokens) { return max_tokens + std::max<int64_t>(16, max_tokens / 10); }

/// Sources that count every token of every chunk (the rest count chunks and estimate).
inline bool counted_exactly(TokenSource s) {
  return s == TokenSource::UsageContinuous || s == TokenSource::Timings || s == TokenSource::TokenIds ||
         s == TokenSource::UsageFinal;
}

class StreamRecording {
 public:
  explicit StreamRecording(OutputCheckWorker& checks) : checks_(&checks) {}
  /// Applies one parsed chunk to `r`. Returns false when the stream must be cut (a protocol error,
  /// or a server that ignores max_tokens); `r.error` then says why.
  bool on_chunk(RequestRecord& r, const ChunkInfo& chunk, int64_t t_ns);
  /// Sets r.end (and the error) when the transfer ended; reconciles the token count first.
  void on_end(RequestRecord& r, const TransferEnd& end, int64_t t_ns);
  /// Streams that never got a count: their one-per-chunk estimate scaled by the tokens per chunk
  /// of the requests that were reconciled (`recordings` parallel to `records`).
  static void scale_uncounted(std::span<RequestRecord* const> records, std::span<const StreamRecording> recordings);

 private:
  int32_t tokens_in(const ChunkInfo& c, int64_t tokens_so_far);
  void finalize(RequestRecord& r);

  OutputCheckWorker* checks_;  ///< the loop's worker: the text goes there a batch at a time
  OutputBatch text_;           ///< the text since the last hand-off
  TokenSource mode_ = TokenSource::Chunks;
  int64_t last_cumulative_ = 0;
  int64_t counted_chunks_ = 0;
  bool reasoning_seen_ = false;      ///< a chunk carried reasoning text
  int64_t first_answer_chunk_ = -1;  ///< index in r.chunks of the first chunk with answer text
};

/// Drains `checks` and puts each finished stream's verdict on its record (`record_of`: the record
/// of a request id, or nullptr when it is not this loop's).
template <class RecordOf>
void apply_output_verdicts(OutputCheckWorker& checks, RecordOf record_of) {
  for (OutputVerdict& v : checks.drain())
    if (RequestRecord* r = record_of(v.stream)) {
      r->output_flaw = v.flaw;
      r->output_excerpt = std::move(v.excerpt);
    }
}

}  // namespace sm
