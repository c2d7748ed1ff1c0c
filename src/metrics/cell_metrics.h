#pragma once
// From raw request records to the numbers of a decode cell or prefill row (docs/METRICS.md).
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "metrics/batch_means.h"
#include "metrics/request_record.h"
#include "result/result.h"

namespace sm {

/// The measurement window of a decode cell: [begin_ns, end_ns).
struct DecodeWindow {
  int64_t begin_ns = 0;  ///< when every stream had produced a first token
  int64_t end_ns = 0;    ///< begin + duration (earlier when the cell was stopped)
};

/// How precise a window's rates are (docs/METRICS.md, "Confidence intervals"): output tokens per
/// second of the window (`total`), and output tokens per stream-second spent generating
/// (`per_stream`), each over bins of about one second, by batch means.
struct DecodeIntervals {
  std::optional<RateInterval> total;
  std::optional<RateInterval> per_stream;
};
DecodeIntervals decode_intervals(std::span<const RequestRecord> records, DecodeWindow window);

/// Output tokens in each whole second of [window.begin, window.end): the bins an adaptive window's
/// stopping rule reads (metrics/window_precision.h). A chunk's tokens are spread evenly over the gap
/// since its stream's previous chunk, so a bin counts the streams' fractional progress, not whole
/// engine steps. A request's first chunk counts at its arrival, but not the one that opened the
/// window (it ends a prefill; one token in a single stream's first second is 1.5% at 65 tok/s,
/// and the fit read it as a slope). Only seconds every stream is known through come out: while a
/// stream is still generating, the gap after its last chunk is not, so a window's last second
/// waits for each stream's next chunk.
std::vector<double> tokens_per_second(std::span<const RequestRecord> records, DecodeWindow window);

/// How many whole seconds of the window tokens_per_second would return: cheap (one look at each
/// request), for asking often whether another second has become known.
int64_t known_whole_seconds(std::span<const RequestRecord> records, DecodeWindow window);

/// A prompt is on target when |prompt_tokens − target| ≤ max(16, 0.5% of target).
bool prompt_length_ok(int64_t prompt_tokens, int64_t target_tokens);

/// Fills every measured field of `cell` (status, context and concurrency are left alone) from
/// the records of the cell's requests (warm-up excluded). `target_prompt_tokens` < 0 skips the
/// prompt-length check.
void compute_decode_metrics(std::span<const RequestRecord> records, DecodeWindow window,
                            int64_t target_prompt_tokens, DecodeCell& cell);

/// run --natural-eos: how long the cell's answers were (DecodeCell::requests_ended and
/// ended_output_tokens) over the requests that ended by themselves, at end of sequence or max
/// output (failed and window-cut requests are left out); nothing set when none ended.
void summarize_output_lengths(std::span<const RequestRecord> records, DecodeCell& cell);

/// Reasoning streamed apart from the answer (docs/METRICS.md, "Reasoning and the first answer
/// token"): over the requests that streamed any, DecodeCell::reasoning_requests, answered_requests,
/// first_answer_ms (send → first answer token) and reasoning_tokens (each request's reasoning
/// before its answer, where its whole length is known). Nothing set when no request reasoned.
/// compute_decode_metrics calls it.
void summarize_reasoning(std::span<const RequestRecord> records, DecodeCell& cell);

/// Fills the measured fields of a burst cell (docs/METRICS.md, "Burst cells") from its measured
/// requests (warm-up excluded): total tok/s = every output token ÷ (last end − first send);
/// per-request tok/s, TTFT, time per output token and end-to-end latency over the requests.
void compute_burst_metrics(std::span<const RequestRecord> records, int64_t target_prompt_tokens, DecodeCell& cell);

/// True when the server ran at least one whole stream fewer than requested, on average, and
/// below 90% of them (gaps between a finished stream and its replacement's first token lower the
/// figure a little, so smaller shortfalls are not flagged). The report warns on these cells.
bool effective_concurrency_below_requested(const DecodeCell& cell);

/// The same rule applied to the server's own count (server_running_mean): it ran fewer requests
/// at once than the cell sent (the rest queued). The report shows such cells as (X/Y)*.
bool server_concurrency_below_requested(const DecodeCell& cell);

/// The server ran at least most of a request more than the cell sent, on average, and over 110%
/// of them: another client, or earlier requests still running. The report warns on these cells.
bool server_concurrency_above_requested(const DecodeCell& cell);

/// Fills the measured fields of a prefill row from its one cold request.
void compute_prefill_metrics(const RequestRecord& record, int64_t target_prompt_tokens, PrefillRow& row);

}  // namespace sm
