#include "bench/closed_loop.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <fmt/format.h>

#include "bench/stream_recording.h"
#include "core/interrupt.h"

namespace sm {

namespace {
void wake_client(void* client) { static_cast<StreamClient*>(client)->wake(); }
}  // namespace

ClosedLoop::ClosedLoop(const Clock& clock, StreamClientOptions options)
    : clock_(clock), client_(clock, *this, options) {
  set_interrupt_waker(&wake_client, &client_);
}

ClosedLoop::~ClosedLoop() { set_interrupt_waker(nullptr, nullptr); }

void ClosedLoop::start_request(int32_t slot) {
  RequestRecord r;
  r.id = next_id_++;
  r.slot = slot;
  r.max_tokens = spec_->max_tokens;
  r.chunks.reserve(static_cast<size_t>(std::min<int64_t>(spec_->max_tokens, 1 << 16)));
  index_of_[r.id] = outcome_.records.size();
  outcome_.records.push_back(std::move(r));
  accounting_.emplace_back();
  RequestRecord& rec = outcome_.records.back();
  rec.send_ns = client_.start(rec.id, spec_->request);
}

// Tokens carried by one chunk. Cumulative counts (continuous usage, llama.cpp timings) are
// exact; a request reads them only when its first chunk with output carries one. A count that
// first appears later is a total, not a running count: some servers put the final usage on their
// last content chunk, and llama.cpp puts it on its finishing chunk, which has no output. Such a
// request counts one token per chunk with output, and finalize() reconciles it with that total.
int32_t ClosedLoop::tokens_in(const ChunkInfo& c, Accounting& acc, int64_t tokens_so_far) {
  auto cumulative = [&](TokenSource mode, int64_t value) -> std::optional<int32_t> {
    if (!c.has_choices || value < 0) return std::nullopt;
    if (acc.mode != mode) {
      const bool first_output = acc.mode == TokenSource::Chunks && tokens_so_far == 0 && c.has_token;
      if (!first_output || value <= 0) return std::nullopt;
      acc.mode = mode;
    }
    const int64_t d = value - acc.last_cumulative;
    acc.last_cumulative = std::max(acc.last_cumulative, value);
    return static_cast<int32_t>(std::max<int64_t>(0, d));
  };
  if (auto n = cumulative(TokenSource::UsageContinuous, c.usage_completion_tokens)) return *n;
  if (auto n = cumulative(TokenSource::Timings, c.timings_predicted_n)) return *n;
  if (c.token_ids >= 0) {
    acc.mode = TokenSource::TokenIds;
    return c.token_ids;
  }
  return c.has_token ? 1 : 0;
}

void ClosedLoop::maybe_open_window(int64_t t_ns) {
  if (outcome_.window_opened || spec_->duration_ns == 0) return;
  outcome_.window_opened = true;
  outcome_.window.begin_ns = t_ns;
  outcome_.window.end_ns = t_ns + spec_->duration_ns;
  client_.stop();  // let run() pick up the new deadline
}

bool ClosedLoop::on_event(uint64_t id, int64_t t_ns, std::string_view data) {
  auto it = index_of_.find(id);
  if (it == index_of_.end()) return false;
  RequestRecord& r = outcome_.records[it->second];
  parser_.parse(data, chunk_);
  switch (chunk_.kind) {
    case ChunkInfo::Kind::Done:
      r.saw_done = true;
      return true;
    case ChunkInfo::Kind::Invalid:
      r.error = chunk_.error_message;
      r.error_code = ErrorCode::Protocol;
      return false;
    case ChunkInfo::Kind::Error:
      r.error = "server error in stream: " + chunk_.error_message;
      r.error_code = ErrorCode::Protocol;
      return false;
    case ChunkInfo::Kind::Data:
      break;
  }
  if (r.server_id.empty() && !chunk_.id.empty()) r.server_id.assign(chunk_.id);  // once per request
  if (chunk_.usage_prompt_tokens >= 0) r.usage_prompt_tokens = chunk_.usage_prompt_tokens;
  // Usage is cumulative wherever it appears: the latest value is the total so far.
  if (chunk_.usage_completion_tokens >= 0) r.usage_completion_tokens = chunk_.usage_completion_tokens;
  if (chunk_.timings_cache_n >= 0) r.cached_prompt_tokens = chunk_.timings_cache_n;
  // llama.cpp's per-token timings say the prompt size before any usage arrives (prompt tokens
  // processed + reused), so streams cut at the window's end are checked too.
  if (chunk_.usage_prompt_tokens < 0 && chunk_.timings_prompt_n >= 0 && chunk_.timings_cache_n >= 0 &&
      r.usage_prompt_tokens < 0)
    r.usage_prompt_tokens = chunk_.timings_prompt_n + chunk_.timings_cache_n;
  if (chunk_.timings_predicted_per_second > 0) r.server_tok_s = chunk_.timings_predicted_per_second;
  if (chunk_.finish != FinishReason::None) r.finish = chunk_.finish;
  Accounting& acc = accounting_[it->second];
  const int32_t tokens = tokens_in(chunk_, acc, r.tokens);
  if (tokens <= 0) return true;
  r.chunks.push_back({t_ns, tokens});
  r.tokens += tokens;
  ++acc.counted_chunks;
  if (r.tokens > overrun_limit(r.max_tokens)) {
    // A server that ignores max_tokens would keep a single request (calibration, warm-up,
    // prefill) streaming for ever: cut it and say why.
    r.error = fmt::format("server ignores max_tokens: it sent {} tokens, {} were asked for", r.tokens, r.max_tokens);
    r.error_code = ErrorCode::Protocol;
    return false;
  }
  if (r.first_token_ns < 0) {
    r.first_token_ns = t_ns;
    int64_t& slot_first = slot_first_token_ns_[static_cast<size_t>(r.slot)];
    if (slot_first < 0) {
      slot_first = t_ns;
      if (++slots_with_token_ == spec_->concurrency) maybe_open_window(t_ns);
    }
  }
  return true;
}

void ClosedLoop::finalize(RequestRecord& r, Accounting& acc) {
  r.source = acc.mode;
  if (r.source != TokenSource::Chunks || r.chunks.empty()) return;
  if (r.usage_completion_tokens >= 0) {
    // Reconcile: spread the server's total over the chunks we saw (design.md, point 5).
    spread_tokens(r, r.usage_completion_tokens);
    r.source = TokenSource::UsageFinal;
  } else if (r.finish == FinishReason::Length && r.max_tokens > 0 && r.tokens <= r.max_tokens) {
    // No count at all, but "length" means exactly max_tokens were generated.
    spread_tokens(r, r.max_tokens);
    r.source = TokenSource::FinishLength;
  }
}

// Streams that never got a count (cut at the window's end before their final usage) count one
// token per chunk; when other requests of the same cell were reconciled, their tokens per
// chunk scale the estimate (a server that sends k tokens per chunk does so for every stream).
void ClosedLoop::scale_uncounted_streams() {
  int64_t reconciled_tokens = 0, reconciled_chunks = 0;
  for (size_t i = 0; i < outcome_.records.size(); ++i) {
    const RequestRecord& r = outcome_.records[i];
    if (r.source != TokenSource::UsageFinal && r.source != TokenSource::FinishLength) continue;
    reconciled_tokens += r.tokens;
    reconciled_chunks += accounting_[i].counted_chunks;
  }
  if (reconciled_chunks == 0 || reconciled_tokens == 0) return;
  const double tokens_per_chunk = static_cast<double>(reconciled_tokens) / static_cast<double>(reconciled_chunks);
  for (size_t i = 0; i < outcome_.records.size(); ++i) {
    RequestRecord& r = outcome_.records[i];
    if (r.source != TokenSource::Chunks || r.chunks.empty()) continue;
    const auto estimate = std::llround(static_cast<double>(accounting_[i].counted_chunks) * tokens_per_chunk);
    spread_tokens(r, std::max<int64_t>(1, estimate));
    r.source = TokenSource::ChunksScaled;
  }
}

void ClosedLoop::on_end(uint64_t id, int64_t t_ns, const TransferEnd& end) {
  auto it = index_of_.find(id);
  if (it == index_of_.end()) return;
  RequestRecord& r = outcome_.records[it->second];
  r.end_ns = t_ns;
  finalize(r, accounting_[it->second]);
  if (end.cancelled && !cut_error_.empty() && r.error.empty()) {
    r.end = RequestEnd::Failed;
    r.error_code = ErrorCode::Timeout;
    r.error = cut_error_;
  } else if (end.cancelled) {
    r.end = RequestEnd::Cut;
  } else if (!end.ok) {
    r.end = RequestEnd::Failed;
    if (r.error.empty()) {
      r.error_code = end.error_code;
      r.error = end.error;
      if (!end.error_body.empty()) r.error += ": " + end.error_body.substr(0, 500);
    }
  } else if (r.finish == FinishReason::Length && !counted_exactly(r.source)) {
    r.end = RequestEnd::Finished;  // counted one per chunk: "length" is the better witness
  } else if (r.finish == FinishReason::Stop || r.tokens < r.max_tokens) {
    r.end = r.tokens == 0 && r.finish == FinishReason::None ? RequestEnd::Failed : RequestEnd::EndedEarly;
    if (r.end == RequestEnd::Failed) {
      r.error_code = ErrorCode::Protocol;
      r.error = "stream ended without any output token";
    }
  } else {
    r.end = RequestEnd::Finished;
  }
  const int32_t slot = r.slot;
  if (r.end == RequestEnd::Failed) ++failures_;
  const int64_t limit = spec_->max_failures > 0 ? spec_->max_failures : 4 * spec_->concurrency + 16;
  if (failures_ >= limit && !outcome_.error) {
    outcome_.error = Error{r.error_code, fmt::format("{} requests failed; last: {}", failures_, r.error)};
    closing_ = true;
    client_.stop();
  }
  if (closing_ || r.end == RequestEnd::Cut) return;
  if (spec_->duration_ns == 0) {
    // Burst: the slot takes the next of the cell's requests while any are left.
    if (spec_->total_requests > static_cast<int64_t>(outcome_.records.size())) start_request(slot);
    return;
  }
  if (outcome_.window_opened && t_ns >= outcome_.window.end_ns) return;
  start_request(slot);  // closed loop: replace the finished stream at once
}

LoopOutcome ClosedLoop::run(const LoopSpec& spec) {
  spec_ = &spec;
  outcome_ = LoopOutcome{};
  index_of_.clear();
  accounting_.clear();
  slot_first_token_ns_.assign(static_cast<size_t>(spec.concurrency), -1);
  slots_with_token_ = 0;
  failures_ = 0;
  closing_ = false;
  cut_error_.clear();
  outcome_.records.reserve(static_cast<size_t>(spec.concurrency) * 4);

  const int64_t start_ns = clock_.now_ns();
  const int64_t ramp_deadline_ns = start_ns + (spec.ramp_timeout_ns > 0 ? spec.ramp_timeout_ns : 120 * kNsPerS);
  const int64_t first_wave = spec.duration_ns == 0 && spec.total_requests > 0
                                 ? std::min<int64_t>(spec.concurrency, spec.total_requests)
                                 : spec.concurrency;
  for (int32_t slot = 0; slot < first_wave; ++slot) start_request(slot);
  constexpr int64_t kTickNs = 250 * kNsPerMs;
  constexpr int64_t kSettleCheckNs = 100 * kNsPerMs;
  int64_t next_tick_ns = start_ns;
  int64_t next_settle_check_ns = 0;  // adaptive windows: the next time window_settled is asked

  while (client_.active() > 0) {
    if (interrupt_requested()) {
      outcome_.interrupted = true;
      break;
    }
    if (outcome_.error) break;
    int64_t deadline_ns;
    if (spec.duration_ns == 0) {
      // Single shot: until the request ends; the read timeout bounds silence, the request
      // timeout a server that keeps sending (pings, or tokens past max_tokens unseen).
      // (A burst has no overall limit: its requests are many, each bounded by the read timeout.)
      deadline_ns = spec.request_timeout_ns > 0 && spec.total_requests == 0 ? start_ns + spec.request_timeout_ns
                                                                            : INT64_MAX;
    } else if (outcome_.window_opened) {
      deadline_ns = outcome_.window.end_ns;
    } else {
      deadline_ns = ramp_deadline_ns;
    }
    const int64_t now_ns = clock_.now_ns();
    if (now_ns >= deadline_ns) {
      if (spec.duration_ns > 0 && !outcome_.window_opened) {
        outcome_.ramp_timed_out = true;
        maybe_open_window(now_ns);
        continue;
      }
      if (spec.duration_ns == 0) {
        outcome_.request_timed_out = true;
        cut_error_ = fmt::format("no end within {:.0f} s (--request-timeout)",
                                 static_cast<double>(spec.request_timeout_ns) / 1e9);
      }
      break;  // window over
    }
    if (outcome_.window_opened && spec.window_settled) {
      if (now_ns >= next_settle_check_ns) {
        next_settle_check_ns = now_ns + kSettleCheckNs;
        if (spec.window_settled(outcome_.records, DecodeWindow{outcome_.window.begin_ns, now_ns})) {
          outcome_.window.end_ns = now_ns;
          outcome_.closed_early = true;
          break;
        }
      }
      deadline_ns = std::min(deadline_ns, next_settle_check_ns);
    }
    if (spec.on_tick) {
      if (now_ns >= next_tick_ns) {
        spec.on_tick();
        next_tick_ns = now_ns + kTickNs;
      }
      deadline_ns = std::min(deadline_ns, next_tick_ns);
    }
    client_.run_until(deadline_ns);
  }
  closing_ = true;
  client_.cancel_all();
  scale_uncounted_streams();
  if (outcome_.window_opened && outcome_.window.end_ns > clock_.now_ns()) outcome_.window.end_ns = clock_.now_ns();
  if (outcome_.interrupted || outcome_.error) {
    // The window closes where the cell stopped; its numbers are partial and labelled so.
    if (outcome_.window_opened) outcome_.window.end_ns = std::min(outcome_.window.end_ns, clock_.now_ns());
  }
  spec_ = nullptr;
  return std::move(outcome_);
}

}  // namespace sm
