#include "metrics/cell_metrics.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "metrics/stats.h"

namespace sm {

namespace {

constexpr double kNsPerMsD = 1e6;
constexpr double kNsPerSD = 1e9;

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

bool in_window(int64_t t_ns, DecodeWindow w) { return t_ns >= w.begin_ns && t_ns < w.end_ns; }

}  // namespace

bool prompt_length_ok(int64_t prompt_tokens, int64_t target_tokens) {
  const double tolerance = std::max(16.0, 0.005 * static_cast<double>(target_tokens));
  return std::fabs(static_cast<double>(prompt_tokens - target_tokens)) <= tolerance;
}

void compute_decode_metrics(std::span<const RequestRecord> records, DecodeWindow window,
                            int64_t target_prompt_tokens, DecodeCell& cell) {
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
  cell.total_tok_s = window_s > 0 ? static_cast<double>(window_tokens) / window_s : 0.0;
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

  // Ended-early, failed, prompt-miss, effective-concurrency and chunk-counted cells are flagged by
  // the report from these fields (one rule, one wording); `warnings` holds what the fields cannot say.
}

bool effective_concurrency_below_requested(const DecodeCell& cell) {
  if (!cell.effective_concurrency || cell.concurrency <= 0) return false;
  const double requested = static_cast<double>(cell.concurrency);
  return requested - *cell.effective_concurrency >= 0.75 && *cell.effective_concurrency < 0.9 * requested;
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
