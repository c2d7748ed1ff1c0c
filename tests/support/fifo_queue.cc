#include "support/fifo_queue.h"

#include <algorithm>

namespace sm::test {

std::vector<TimedRequest> fifo_records(const std::vector<int64_t>& arrivals_ns, const FifoService& s) {
  std::vector<TimedRequest> out;
  int64_t busy_until_ns = 0;
  uint64_t id = 1;
  for (int64_t at : arrivals_ns) {
    TimedRequest t;
    t.intended_ns = at;
    RequestRecord& r = t.record;
    r.id = id++;
    r.max_tokens = s.tokens;
    r.send_ns = at;
    const int64_t start = std::max(at, busy_until_ns);
    for (int64_t k = 0; k < s.tokens; ++k) r.chunks.push_back({start + s.prefill_ns + k * s.interval_ns, 1});
    r.tokens = s.tokens;
    r.first_token_ns = r.chunks.front().t_ns;
    r.end_ns = r.chunks.back().t_ns;
    r.end = RequestEnd::Finished;
    r.finish = FinishReason::Length;
    r.usage_prompt_tokens = 100;
    busy_until_ns = r.end_ns;
    out.push_back(std::move(t));
  }
  return out;
}

StreamScript FifoScript::pick(const RequestInfo&) {
  std::lock_guard lock(mu_);
  const int64_t now = SteadyClock::instance().now_ns();
  const int64_t start = std::max(now, busy_until_ns_);
  busy_until_ns_ = start + service_.service_ns();
  StreamScript script;
  script.ttft_ns = start - now + service_.prefill_ns;
  script.token_interval_ns = service_.interval_ns;
  script.output_tokens = service_.tokens;
  return script;
}

}  // namespace sm::test
