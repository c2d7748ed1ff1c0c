#include "bench/closed_loop.h"

#include <algorithm>
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

void ClosedLoop::start_request(int32_t slot) { start_request(slot, spec_->request, spec_->max_tokens); }

void ClosedLoop::start_request(int32_t slot, const HttpRequest& request, int64_t max_tokens) {
  RequestRecord r;
  r.id = next_id_++;
  r.slot = slot;
  r.max_tokens = max_tokens;
  r.chunks.reserve(static_cast<size_t>(std::min<int64_t>(max_tokens, 1 << 16)));
  index_of_[r.id] = outcome_.records.size();
  outcome_.records.push_back(std::move(r));
  recordings_.emplace_back(output_checks_);
  RequestRecord& rec = outcome_.records.back();
  rec.send_ns = client_.start(rec.id, request);
}

namespace {
// How long an intruder may go without a token.
int64_t intruder_timeout_ns(const LoopSpec& spec) {
  return spec.request_timeout_ns > 0 ? spec.request_timeout_ns : 600 * kNsPerS;
}
}  // namespace

void ClosedLoop::start_intruder(int64_t t_ns) {
  intruder_sent_ = true;
  start_request(static_cast<int32_t>(spec_->concurrency), *spec_->intruder, spec_->intruder_max_tokens);
  outcome_.window.end_ns = t_ns + intruder_timeout_ns(*spec_) + spec_->intruder_tail_ns;
}

void ClosedLoop::close_window_after_intruder(int64_t t_ns) {
  if (intruder_done_) return;
  intruder_done_ = true;
  outcome_.window.end_ns = std::min(outcome_.window.end_ns, t_ns + spec_->intruder_tail_ns);
  client_.stop();  // let run() pick up the new deadline
}

void ClosedLoop::maybe_open_window(int64_t t_ns) {
  if (outcome_.window_opened || spec_->duration_ns == 0) return;
  outcome_.window_opened = true;
  outcome_.window.begin_ns = t_ns;
  outcome_.window.end_ns =
      spec_->intruder
          ? t_ns + spec_->intruder_after_ns + intruder_timeout_ns(*spec_) + spec_->intruder_tail_ns
          : t_ns + spec_->duration_ns;
  client_.stop();  // let run() pick up the new deadline
}

bool ClosedLoop::on_event(uint64_t id, int64_t t_ns, std::string_view data) {
  auto it = index_of_.find(id);
  if (it == index_of_.end()) return false;
  RequestRecord& r = outcome_.records[it->second];
  parser_.parse(data, chunk_);
  // The chunk's tokens, usage, finish reason and errors, by the rules the open loop uses too.
  const bool had_token = r.first_token_ns >= 0;
  if (!recordings_[it->second].on_chunk(r, chunk_, t_ns)) return false;
  if (!had_token && r.first_token_ns >= 0 && is_intruder(r.slot)) {
    close_window_after_intruder(t_ns);
  } else if (!had_token && r.first_token_ns >= 0) {
    int64_t& slot_first = slot_first_token_ns_[static_cast<size_t>(r.slot)];
    if (slot_first < 0) {
      slot_first = t_ns;
      if (++slots_with_token_ == spec_->concurrency) maybe_open_window(t_ns);
    }
  }
  return true;
}

// Streams that never got a count (cut at the window's end before their final usage) count one
// token per chunk, scaled by the tokens per chunk of the requests that were reconciled.
void ClosedLoop::scale_uncounted_streams() {
  std::vector<RequestRecord*> records;
  records.reserve(outcome_.records.size());
  for (RequestRecord& r : outcome_.records) records.push_back(&r);
  StreamRecording::scale_uncounted(records, recordings_);
}

void ClosedLoop::on_end(uint64_t id, int64_t t_ns, const TransferEnd& end) {
  auto it = index_of_.find(id);
  if (it == index_of_.end()) return;
  RequestRecord& r = outcome_.records[it->second];
  recordings_[it->second].on_end(r, end, t_ns);
  // A stream cancelled because its cell timed out (cut_error_) failed; one cancelled at the
  // window's end was cut.
  if (end.cancelled && !cut_error_.empty() && r.error.empty()) {
    r.end = RequestEnd::Failed;
    r.error_code = ErrorCode::Timeout;
    r.error = cut_error_;
  }
  const int32_t slot = r.slot;
  if (r.end == RequestEnd::Failed) ++failures_;
  const int64_t limit = spec_->max_failures > 0 ? spec_->max_failures : 4 * spec_->concurrency + 16;
  if (failures_ >= limit && !outcome_.error) {
    outcome_.error = Error{r.error_code, fmt::format("{} requests failed; last: {}", failures_, r.error)};
    closing_ = true;
    client_.stop();
  }
  if (is_intruder(slot)) {
    close_window_after_intruder(t_ns);  // ended without a token (or after its first: already set)
    return;
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
  recordings_.clear();
  slot_first_token_ns_.assign(static_cast<size_t>(spec.concurrency), -1);
  intruder_sent_ = false;
  intruder_done_ = false;
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
      if (spec.intruder && !intruder_sent_) {
        const int64_t send_at_ns = outcome_.window.begin_ns + spec.intruder_after_ns;
        if (clock_.now_ns() >= send_at_ns) {
          start_intruder(clock_.now_ns());
          continue;
        }
        deadline_ns = std::min(deadline_ns, send_at_ns);
      }
    } else {
      deadline_ns = ramp_deadline_ns;
    }
    const int64_t now_ns = clock_.now_ns();
    if (now_ns >= deadline_ns) {
      if (spec.intruder && outcome_.window_opened && !intruder_sent_ && now_ns < outcome_.window.end_ns)
        continue;  // its send time came: sent above
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
  apply_output_verdicts(output_checks_, [this](uint64_t id) -> RequestRecord* {
    auto it = index_of_.find(id);
    return it == index_of_.end() ? nullptr : &outcome_.records[it->second];
  });
  if (outcome_.window_opened && outcome_.window.end_ns > clock_.now_ns()) outcome_.window.end_ns = clock_.now_ns();
  if (outcome_.interrupted || outcome_.error) {
    // The window closes where the cell stopped; its numbers are partial and labelled so.
    if (outcome_.window_opened) outcome_.window.end_ns = std::min(outcome_.window.end_ns, clock_.now_ns());
  }
  spec_ = nullptr;
  return std::move(outcome_);
}

}  // namespace sm
