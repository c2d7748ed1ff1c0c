#include "bench/open_loop.h"

#include <algorithm>
#include <ctime>
#include <fmt/format.h>

#include "core/interrupt.h"

namespace sm {

namespace {
void wake_open_loop_client(void* client) { static_cast<StreamClient*>(client)->wake(); }
constexpr int64_t kTickNs = 250 * kNsPerMs;
constexpr int64_t kSleepSliceNs = 5 * kNsPerMs;
}  // namespace

void sleep_until(const Clock& clock, int64_t deadline_ns) {
  while (!interrupt_requested()) {
    const int64_t left_ns = deadline_ns - clock.now_ns();
    if (left_ns <= 0) return;
    const int64_t slice_ns = std::min(left_ns, kSleepSliceNs);
    timespec ts{static_cast<time_t>(slice_ns / kNsPerS), static_cast<long>(slice_ns % kNsPerS)};
    nanosleep(&ts, nullptr);
  }
}

OpenLoop::OpenLoop(const Clock& clock, StreamClientOptions options, ArrivalWait idle_wait)
    : clock_(clock), client_(clock, *this, options), idle_wait_(std::move(idle_wait)) {
  if (!idle_wait_) idle_wait_ = [this](int64_t deadline_ns) { sleep_until(clock_, deadline_ns); };
  set_interrupt_waker(&wake_open_loop_client, &client_);
}

OpenLoop::~OpenLoop() { set_interrupt_waker(nullptr, nullptr); }

void OpenLoop::send(size_t index, int64_t intended_ns) {
  const PlannedRequest& planned = spec_->requests[index];
  const HttpRequest request =
      planned.after >= 0 && spec_->prepare ? spec_->prepare(index, outcome_.answers) : HttpRequest{};
  TimedRequest t;
  t.intended_ns = intended_ns;
  t.record.id = next_id_++;
  t.record.slot = static_cast<int32_t>(index);
  t.record.max_tokens = planned.max_tokens;
  t.record.chunks.reserve(static_cast<size_t>(std::min<int64_t>(planned.max_tokens, 1 << 16)));
  index_of_[t.record.id] = outcome_.requests.size();
  outcome_.requests.push_back(std::move(t));
  recordings_.emplace_back(output_checks_);
  RequestRecord& r = outcome_.requests.back().record;
  r.send_ns = client_.start(r.id, planned.after >= 0 && spec_->prepare ? request : planned.request);
}

bool OpenLoop::on_event(uint64_t id, int64_t t_ns, std::string_view data) {
  auto it = index_of_.find(id);
  if (it == index_of_.end()) return false;
  parser_.parse(data, chunk_);
  RequestRecord& r = outcome_.requests[it->second].record;
  const auto index = static_cast<size_t>(r.slot);
  if (spec_->requests[index].keep_text) outcome_.answers[index].append(chunk_.text);
  return recordings_[it->second].on_chunk(r, chunk_, t_ns);
}

void OpenLoop::on_end(uint64_t id, int64_t t_ns, const TransferEnd& end) {
  auto it = index_of_.find(id);
  if (it == index_of_.end()) return;
  RequestRecord& r = outcome_.requests[it->second].record;
  recordings_[it->second].on_end(r, end, t_ns);
  if (end.cancelled && !cut_error_.empty() && r.error.empty()) {
    r.end = RequestEnd::Failed;
    r.error_code = ErrorCode::Timeout;
    r.error = cut_error_;
  }
  // The requests waiting for this one may go now (at their time, if it is later).
  const auto index = static_cast<size_t>(r.slot);
  if (index < waiting_on_.size() && !waiting_on_[index].empty()) {
    for (size_t next : waiting_on_[index]) {
      ready_.emplace_back(std::max(start_ns_ + spec_->requests[next].at_ns, t_ns), next);
      std::push_heap(ready_.begin(), ready_.end(), std::greater<>{});
    }
    client_.stop();
  }
}

OpenLoopOutcome OpenLoop::run(const OpenLoopSpec& spec) {
  spec_ = &spec;
  outcome_ = OpenLoopOutcome{};
  outcome_.requests.reserve(spec.requests.size());
  recordings_.clear();
  recordings_.reserve(spec.requests.size());
  index_of_.clear();
  cut_error_.clear();

  outcome_.answers.assign(spec.requests.size(), std::string());
  waiting_on_.assign(spec.requests.size(), {});
  ready_.clear();
  const int64_t start_ns = clock_.now_ns();
  start_ns_ = start_ns;
  outcome_.start_ns = start_ns;
  for (size_t i = 0; i < spec.requests.size(); ++i) {
    const int64_t after = spec.requests[i].after;
    if (after >= 0 && static_cast<size_t>(after) < spec.requests.size())
      waiting_on_[static_cast<size_t>(after)].push_back(i);
    else
      ready_.emplace_back(start_ns + spec.requests[i].at_ns, i);
  }
  std::make_heap(ready_.begin(), ready_.end(), std::greater<>{});
  size_t sent = 0;
  int64_t last_intended_ns = start_ns;  // the drain timeout counts from the last request's time
  int64_t next_tick_ns = start_ns;
  while (true) {
    if (interrupt_requested()) {
      outcome_.interrupted = true;
      break;
    }
    int64_t now_ns = clock_.now_ns();
    // Every request whose time has come goes out now, late ones included; their intended start
    // stays where the schedule (or the end of what they waited for) put it.
    while (!ready_.empty() && ready_.front().first <= now_ns) {
      std::pop_heap(ready_.begin(), ready_.end(), std::greater<>{});
      const auto [intended_ns, index] = ready_.back();
      ready_.pop_back();
      send(index, intended_ns);
      last_intended_ns = std::max(last_intended_ns, intended_ns);
      ++sent;
    }
    const bool all_sent = sent == spec.requests.size();
    if (client_.active() == 0 && (all_sent || ready_.empty())) break;  // (a wait on a request never sent)
    const int64_t drain_deadline_ns =
        all_sent && spec.drain_timeout_ns > 0 ? last_intended_ns + spec.drain_timeout_ns : INT64_MAX;
    if (all_sent && now_ns >= drain_deadline_ns) {
      outcome_.drain_timed_out = true;
      cut_error_ = fmt::format("still running {:.0f} s after the last arrival (the drain timeout)",
                               static_cast<double>(spec.drain_timeout_ns) / 1e9);
      break;
    }
    int64_t deadline_ns = all_sent ? drain_deadline_ns : ready_.empty() ? INT64_MAX : ready_.front().first;
    if (spec.on_tick) {
      if (now_ns >= next_tick_ns) {
        spec.on_tick();
        next_tick_ns = now_ns + kTickNs;
      }
      deadline_ns = std::min(deadline_ns, next_tick_ns);
    }
    if (client_.active() > 0) client_.run_until(deadline_ns);
    else idle_wait_(deadline_ns);
  }
  client_.cancel_all();
  std::vector<RequestRecord*> records;
  records.reserve(outcome_.requests.size());
  for (auto& t : outcome_.requests) records.push_back(&t.record);
  StreamRecording::scale_uncounted(records, recordings_);
  apply_output_verdicts(output_checks_, [this](uint64_t id) -> RequestRecord* {
    auto it = index_of_.find(id);
    return it == index_of_.end() ? nullptr : &outcome_.requests[it->second].record;
  });
  spec_ = nullptr;
  return std::move(outcome_);
}

}  // namespace sm
