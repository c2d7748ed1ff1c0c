#include "metrics/cell_metrics.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "core/clock.h"
#include "metrics/batch_means.h"
#include "metrics/output_check.h"
#include "metrics/stats.h"

namespace sm {

namespace {

// Calls f(t_ns) for each output token of a request, in order. A chunk of k tokens shares the
// gap since the previous chunk evenly among them (design.md): its j-th token (1..k) is placed at
// prev + gap × j / k. The first chunk has no gap: all its tokens are at its arrival.
template <class F>
void for_each_token_time(const RequestRecord& r, F&& f) {
  int64_t prev_ns = -1;
  for (const auto& c : r.chunks) {
    if (prev_ns < 0 || c.tokens <= 1) {
      for (int32_t j = 0; j < c.tokens; ++j) f(c.t_ns);
    } else {
      const int64_t gap_ns = c.t_ns - prev_ns;
      for (int32_t j = 1; j <= c.tokens; ++j) f(prev_ns + gap_ns * j / c.tokens);
    }
    prev_ns = c.t_ns;
  }
}

// Every request of the cell, in the window or not: a loop is the server's whether or not it fell
// inside the window.
void summarize_checked_output(std::span<const RequestRecord> records, DecodeCell& cell) {
  OutputCheckSummary checked = summarize_output(records);
  if (checked.requests > 0) cell.output_check = std::move(checked);
}

bool in_window(int64_t t_ns, DecodeWindow w) { return t_ns >= w.begin_ns && t_ns < w.end_ns; }

// The window cut into bins of about one second (at least one bin).
struct Bins {
  int64_t count = 1;
  double width_ns = 0;
  size_t index(int64_t t_ns, DecodeWindow w) const {
    const auto i = static_cast<int64_t>(static_cast<double>(t_ns - w.begin_ns) / width_ns);
    return static_cast<size_t>(std::clamp<int64_t>(i, 0, count - 1));
  }
};

Bins bins_of(DecodeWindow w) {
  Bins b;
  const double span_ns = static_cast<double>(w.end_ns - w.begin_ns);
  b.count = std::max<int64_t>(1, std::llround(span_ns / kNsPerSD));
  b.width_ns = span_ns / static_cast<double>(b.count);
  return b;
}

// Adds the part of [begin, end) inside each bin, in seconds × `per_s`, to `seconds`.
void add_overlap(int64_t begin_ns, int64_t end_ns, DecodeWindow w, const Bins& b, std::vector<double>& seconds,
                 double per_s = 1.0) {
  begin_ns = std::max(begin_ns, w.begin_ns);
  end_ns = std::min(end_ns, w.end_ns);
  if (end_ns <= begin_ns) return;
  for (size_t i = b.index(begin_ns, w); i < seconds.size(); ++i) {
    const double lo = static_cast<double>(w.begin_ns) + b.width_ns * static_cast<double>(i);
    const double hi = lo + b.width_ns;
    const double overlap = std::min(hi, static_cast<double>(end_ns)) - std::max(lo, static_cast<double>(begin_ns));
    if (overlap > 0) seconds[i] += overlap / kNsPerSD * per_s;
    if (hi >= static_cast<double>(end_ns)) break;
  }
}

}  // namespace

int64_t known_whole_seconds(std::span<const RequestRecord> records, DecodeWindow window) {
  if (window.end_ns <= window.begin_ns) return 0;
  // How far every stream is known: one still generating at the window's end (running, or cut
  // there) has sent nothing since its last chunk, whose tokens are not yet spread back over the
  // gap; a stream that ended, or has a chunk past the end, is known throughout.
  int64_t known_ns = window.end_ns;
  for (const auto& r : records) {
    if (r.chunks.empty() || r.chunks.front().t_ns > window.end_ns) continue;
    const bool producing = r.end == RequestEnd::Running || r.end == RequestEnd::Cut || r.end_ns > window.end_ns;
    if (!producing || r.chunks.back().t_ns > window.end_ns) continue;
    known_ns = std::min(known_ns, r.chunks.back().t_ns);
  }
  return std::max<int64_t>(0, known_ns - window.begin_ns) / kNsPerS;
}

std::vector<double> tokens_per_second(std::span<const RequestRecord> records, DecodeWindow window) {
  const int64_t whole = known_whole_seconds(records, window);
  std::vector<double> bins(static_cast<size_t>(whole), 0.0);
  if (whole == 0) return bins;
  const DecodeWindow known{window.begin_ns, window.begin_ns + whole * kNsPerS};
  const Bins seconds{whole, kNsPerSD};
  for (const auto& r : records) {
    int64_t prev_ns = -1;
    for (const auto& c : r.chunks) {
      // A first token has no gap before it: it counts at its arrival, unless it opened the window
      // (the last stream's first token is the ramp's, not the first second's). Any other chunk's
      // tokens were made over the gap since the previous one: spread evenly over it.
      const bool point = prev_ns < 0 || c.t_ns <= prev_ns;
      if (!point)
        add_overlap(prev_ns, c.t_ns, known, seconds, bins, c.tokens * kNsPerSD / static_cast<double>(c.t_ns - prev_ns));
      else if (in_window(c.t_ns, known) && (prev_ns >= 0 || c.t_ns > window.begin_ns))
        bins[seconds.index(c.t_ns, known)] += c.tokens;
      prev_ns = c.t_ns;
    }
  }
  return bins;
}

DecodeIntervals decode_intervals(std::span<const RequestRecord> records, DecodeWindow window) {
  DecodeIntervals out;
  if (window.end_ns <= window.begin_ns) return out;
  const Bins bins = bins_of(window);
  const auto n = static_cast<size_t>(bins.count);
  std::vector<double> tokens(n, 0.0), seconds(n, bins.width_ns / kNsPerSD), stream_seconds(n, 0.0);
  for (const auto& r : records) {
    for (const auto& c : r.chunks)
      if (in_window(c.t_ns, window)) tokens[bins.index(c.t_ns, window)] += c.tokens;
    if (r.first_token_ns < 0 || r.chunks.empty()) continue;
    const bool open = r.end == RequestEnd::Running || r.end == RequestEnd::Cut;
    const int64_t last_ns = open ? (r.end_ns >= 0 ? std::max(r.end_ns, r.chunks.back().t_ns) : window.end_ns)
                                 : r.chunks.back().t_ns;
    add_overlap(r.first_token_ns, last_ns, window, bins, stream_seconds);
  }
  out.total = batch_means_interval(tokens, seconds, true);
  out.per_stream = batch_means_interval(tokens, stream_seconds, true);
  return out;
}

bool prompt_length_ok(int64_t prompt_tokens, int64_t target_tokens) {
  const double tolerance = std::max(16.0, 0.005 * static_cast<double>(target_tokens));
  return std::fabs(static_cast<double>(prompt_tokens - target_tokens)) <= tolerance;
}

void summarize_output_lengths(std::span<const RequestRecord> records, DecodeCell& cell) {
  std::vector<double> lengths;
  for (const auto& r : records)
    if (r.end == RequestEnd::Finished || r.end == RequestEnd::EndedEarly) lengths.push_back(static_cast<double>(r.tokens));
  if (lengths.empty()) return;
  cell.requests_ended = static_cast<int64_t>(lengths.size());
  cell.ended_output_tokens = percentiles_of(std::move(lengths));
}

void summarize_reasoning(std::span<const RequestRecord> records, DecodeCell& cell) {
  std::vector<double> answer_ms, reasoning;
  int64_t reasoned = 0;
  for (const auto& r : records) {
    if (r.reasoning_tokens < 0) continue;
    ++reasoned;
    if (r.first_answer_ns >= 0) answer_ms.push_back(static_cast<double>(r.first_answer_ns - r.send_ns) / kNsPerMsD);
    // Its reasoning's whole length is known once the answer began or the request ended.
    if (r.first_answer_ns >= 0 || r.end == RequestEnd::Finished || r.end == RequestEnd::EndedEarly)
      reasoning.push_back(static_cast<double>(r.reasoning_tokens));
  }
  if (reasoned == 0) return;
  cell.reasoning_requests = reasoned;
  cell.answered_requests = static_cast<int64_t>(answer_ms.size());
  cell.first_answer_ms = percentiles_of(std::move(answer_ms));
  cell.reasoning_tokens = percentiles_of(std::move(reasoning));
}

void compute_decode_metrics(std::span<const RequestRecord> records, DecodeWindow window,
                            int64_t target_prompt_tokens, DecodeCell& cell) {
  summarize_checked_output(records, cell);
  summarize_reasoning(records, cell);
  const double window_s = static_cast<double>(window.end_ns - window.begin_ns) / kNsPerSD;
  int64_t window_tokens = 0;
  int64_t window_chunks = 0;
  int64_t completed = 0;
  int64_t failed = 0;
  int64_t ended_early = 0;
  std::vector<double> ttft_ms, per_request_tok_s, tbt_ms, chunk_gap_ms;
  std::vector<Interval> active, generating;
  int64_t prompt_min = -1, prompt_max = -1;
  bool prompt_ok = true;
  // The weakest source among the requests whose tokens the window counted: a cell is only as
  // exact as its least exact stream (a stream cut before its final usage is an estimate).
  TokenSource weakest_source = TokenSource::UsageContinuous;
  bool any_source = false;

  for (const auto& r : records) {
    if (r.first_token_ns >= 0) ttft_ms.push_back(static_cast<double>(r.first_token_ns - r.send_ns) / kNsPerMsD);
    if (r.end == RequestEnd::Failed) ++failed;
    if (r.end == RequestEnd::EndedEarly) ++ended_early;
    if ((r.end == RequestEnd::Finished || r.end == RequestEnd::EndedEarly) && in_window(r.end_ns, window)) ++completed;
    if (r.usage_prompt_tokens >= 0) {
      prompt_min = prompt_min < 0 ? r.usage_prompt_tokens : std::min(prompt_min, r.usage_prompt_tokens);
      prompt_max = std::max(prompt_max, r.usage_prompt_tokens);
      if (target_prompt_tokens >= 0 && !prompt_length_ok(r.usage_prompt_tokens, target_prompt_tokens)) prompt_ok = false;
    }
    const int64_t end_ns = r.end_ns >= 0 ? r.end_ns : window.end_ns;
    active.push_back({r.send_ns, end_ns});
    if (r.first_token_ns >= 0) {
      const int64_t last_ns = r.end == RequestEnd::Running || r.end == RequestEnd::Cut ? end_ns : r.chunks.back().t_ns;
      generating.push_back({r.first_token_ns, std::max(last_ns, r.first_token_ns)});
    }

    // Chunks inside the window: totals and inter-chunk gaps.
    int64_t prev_chunk_ns = -1;
    for (const auto& c : r.chunks) {
      if (in_window(c.t_ns, window)) {
        weakest_source = std::max(weakest_source, r.source);
        any_source = true;
        window_tokens += c.tokens;
        ++window_chunks;
        if (prev_chunk_ns >= 0 && in_window(prev_chunk_ns, window))
          chunk_gap_ms.push_back(static_cast<double>(c.t_ns - prev_chunk_ns) / kNsPerMsD);
      }
      prev_chunk_ns = c.t_ns;
    }
    // Tokens inside the window: per-request rate and time between tokens.
    int64_t n = 0, first_ns = -1, last_ns = -1, prev_ns = -1;
    for_each_token_time(r, [&](int64_t t_ns) {
      if (in_window(t_ns, window)) {
        if (prev_ns >= 0 && in_window(prev_ns, window)) tbt_ms.push_back(static_cast<double>(t_ns - prev_ns) / kNsPerMsD);
        if (first_ns < 0) first_ns = t_ns;
        last_ns = t_ns;
        ++n;
      }
      prev_ns = t_ns;
    });
    if (n >= 2 && last_ns > first_ns)
      per_request_tok_s.push_back(static_cast<double>(n - 1) / (static_cast<double>(last_ns - first_ns) / kNsPerSD));
  }

  cell.measured_s = window_s;
  cell.output_tokens = window_tokens;
  // A window of no length measured no rate: empty, not 0 tok/s (which would read as a server
  // that produced nothing).
  if (window_s > 0) cell.total_tok_s = static_cast<double>(window_tokens) / window_s;
  else cell.total_tok_s.reset();
  if (!per_request_tok_s.empty()) cell.per_request_tok_s = median(per_request_tok_s);
  if (!ttft_ms.empty()) {
    cell.ttft_ms = percentile(ttft_ms, 0.5);
    cell.ttft_p90_ms = percentile(ttft_ms, 0.9);
    cell.ttft_p99_ms = percentile(ttft_ms, 0.99);
  }
  if (!tbt_ms.empty()) {
    cell.tbt_ms = percentile(tbt_ms, 0.5);
    cell.tbt_p90_ms = percentile(tbt_ms, 0.9);
    cell.tbt_p99_ms = percentile(tbt_ms, 0.99);
  }
  if (!chunk_gap_ms.empty()) cell.chunk_gap_ms = median(chunk_gap_ms);
  if (window_chunks > 0) cell.tokens_per_chunk = static_cast<double>(window_tokens) / static_cast<double>(window_chunks);
  cell.avg_active = time_weighted_count(active, window.begin_ns, window.end_ns);
  cell.effective_concurrency = time_weighted_count(generating, window.begin_ns, window.end_ns);
  cell.completed = completed;
  cell.requests_started = static_cast<int64_t>(records.size());
  cell.requests_failed = failed;
  cell.ended_early = ended_early;
  cell.token_count_source = any_source ? std::string(to_string(weakest_source)) : "";
  if (prompt_min >= 0) {
    cell.prompt_tokens_min = prompt_min;
    cell.prompt_tokens_max = prompt_max;
  }
  cell.prompt_length_ok = prompt_ok;
  const DecodeIntervals ci = decode_intervals(records, window);
  if (ci.total) cell.total_tok_s_ci = ci.total->half_width;
  if (ci.per_stream && cell.per_request_tok_s && ci.per_stream->mean > 0)
    cell.per_request_tok_s_ci = *cell.per_request_tok_s * ci.per_stream->half_width / ci.per_stream->mean;

  // Ended-early, failed, prompt-miss, effective-concurrency and chunk-counted cells are flagged by
  // the report from these fields (one rule, one wording); `warnings` holds what the fields cannot say.
}

void compute_burst_metrics(std::span<const RequestRecord> records, int64_t target_prompt_tokens, DecodeCell& cell) {
  if (records.empty()) return;
  summarize_checked_output(records, cell);
  int64_t first_send_ns = INT64_MAX, last_end_ns = INT64_MIN;
  for (const auto& r : records) {
    first_send_ns = std::min(first_send_ns, r.send_ns);
    last_end_ns = std::max(last_end_ns, r.end_ns >= 0 ? r.end_ns : r.send_ns);
  }
  // Every token of the burst lies in [first send, last end]: the window metrics count them all.
  const DecodeWindow all{first_send_ns, last_end_ns + 1};
  compute_decode_metrics(records, all, target_prompt_tokens, cell);
  cell.total_tok_s_ci.reset();  // a burst's rate is not stationary (its tail): no batch-means interval
  cell.per_request_tok_s_ci.reset();
  cell.measured_s = static_cast<double>(last_end_ns - first_send_ns) / kNsPerSD;
  if (*cell.measured_s > 0) cell.total_tok_s = static_cast<double>(cell.output_tokens.value_or(0)) / *cell.measured_s;
  std::vector<double> e2e_ms, tpot_ms, per_request;
  for (const auto& r : records) {
    if (r.end == RequestEnd::Failed || r.first_token_ns < 0 || r.chunks.empty()) continue;
    const int64_t last_token_ns = r.chunks.back().t_ns;
    e2e_ms.push_back(static_cast<double>(last_token_ns - r.send_ns) / kNsPerMsD);
    if (r.tokens >= 2 && last_token_ns > r.first_token_ns) {
      const double span_ms = static_cast<double>(last_token_ns - r.first_token_ns) / kNsPerMsD;
      tpot_ms.push_back(span_ms / static_cast<double>(r.tokens - 1));
      per_request.push_back(static_cast<double>(r.tokens - 1) / (span_ms / 1e3));
    }
  }
  if (!e2e_ms.empty()) {
    cell.e2e_ms = percentile(e2e_ms, 0.5);
    cell.e2e_p90_ms = percentile(e2e_ms, 0.9);
    cell.e2e_p99_ms = percentile(e2e_ms, 0.99);
  }
  if (!tpot_ms.empty()) {
    cell.tpot_ms = percentile(tpot_ms, 0.5);
    cell.tpot_p90_ms = percentile(tpot_ms, 0.9);
    cell.tpot_p99_ms = percentile(tpot_ms, 0.99);
  }
  if (!per_request.empty()) cell.per_request_tok_s = median(per_request);
}

namespace {
bool below_requested(std::optional<double> seen, int64_t concurrency) {
  if (!seen || concurrency <= 0) return false;
  const double requested = static_cast<double>(concurrency);
  return requested - *seen >= 0.75 && *seen < 0.9 * requested;
}
}  // namespace

bool effective_concurrency_below_requested(const DecodeCell& cell) {
  return below_requested(cell.effective_concurrency, cell.concurrency);
}

bool server_concurrency_below_requested(const DecodeCell& cell) {
  return below_requested(cell.server_running_mean, cell.concurrency);
}

bool server_concurrency_above_requested(const DecodeCell& cell) {
  if (!cell.server_running_mean || cell.concurrency <= 0) return false;
  const double requested = static_cast<double>(cell.concurrency);
  return *cell.server_running_mean - requested >= 0.75 && *cell.server_running_mean > 1.1 * requested;
}

void compute_prefill_metrics(const RequestRecord& r, int64_t target_prompt_tokens, PrefillRow& row) {
  if (r.first_token_ns >= 0) {
    const double ttft_ms = static_cast<double>(r.first_token_ns - r.send_ns) / kNsPerMsD;
    row.ttft_ms = ttft_ms;
    // prompt tok/s = P / TTFT (design.md); the prompt-length check vouches for P.
    if (ttft_ms > 0) row.prompt_tok_s = static_cast<double>(target_prompt_tokens) / (ttft_ms / 1e3);
  }
  if (r.usage_prompt_tokens >= 0) {
    row.prompt_tokens = r.usage_prompt_tokens;
    row.prompt_length_ok = prompt_length_ok(r.usage_prompt_tokens, target_prompt_tokens);
  }
  if (r.cached_prompt_tokens >= 0) row.cached_tokens = r.cached_prompt_tokens;
}

}  // namespace sm
