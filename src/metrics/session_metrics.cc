#include "metrics/session_metrics.h"

#include <algorithm>
#include <map>
#include <vector>

#include "core/clock.h"
#include "metrics/stats.h"

namespace sm {

namespace {

struct SessionTurnTally {
  int64_t requests = 0, failed = 0;
  std::vector<double> ttft_ms, decode_tok_s;
  double prompt_sum = 0, cached_sum = 0, cached_prompt_sum = 0;
  int64_t prompts = 0;
};

std::optional<double> session_quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::nullopt;
  return percentile(values, q);
}

double session_ns_to_ms(int64_t ns) { return static_cast<double>(ns) / kNsPerMsD; }

}  // namespace

SessionsResult summarize_sessions(std::span<const SessionRequestView> requests, bool trace) {
  SessionsResult out;
  std::map<int64_t, SessionTurnTally> turns;
  std::vector<double> cached_ttft, cold_ttft, late_ms;
  int64_t output_tokens = 0, first_send = INT64_MAX, last_end = INT64_MIN;
  for (const SessionRequestView& v : requests) {
    const RequestRecord& r = *v.record;
    SessionTurnTally& t = turns[v.turn];
    ++t.requests;
    ++out.requests;
    first_send = std::min(first_send, r.send_ns);
    if (r.end_ns >= 0) last_end = std::max(last_end, r.end_ns);
    late_ms.push_back(session_ns_to_ms(std::max<int64_t>(0, r.send_ns - v.intended_ns)));
    if (r.end == RequestEnd::Failed || r.first_token_ns < 0) {
      ++t.failed;
      ++out.failed;
      continue;
    }
    output_tokens += r.tokens;
    const double ttft = session_ns_to_ms(r.first_token_ns - r.send_ns);
    t.ttft_ms.push_back(ttft);
    if (r.tokens > 1 && !r.chunks.empty() && r.chunks.back().t_ns > r.first_token_ns)
      t.decode_tok_s.push_back(static_cast<double>(r.tokens - 1) * 1e9 /
                               static_cast<double>(r.chunks.back().t_ns - r.first_token_ns));
    if (r.usage_prompt_tokens > 0) {
      t.prompt_sum += static_cast<double>(r.usage_prompt_tokens);
      ++t.prompts;
      if (r.cached_prompt_tokens >= 0) {
        const auto cached = static_cast<double>(std::min(r.cached_prompt_tokens, r.usage_prompt_tokens));
        t.cached_sum += cached;
        t.cached_prompt_sum += static_cast<double>(r.usage_prompt_tokens);
        if (cached >= kCachedTurnShare * static_cast<double>(r.usage_prompt_tokens)) {
          ++out.cached_requests;
          cached_ttft.push_back(ttft);
        } else {
          ++out.cold_requests;
          cold_ttft.push_back(ttft);
        }
      }
    }
  }
  double prompt_sum = 0, cached_sum = 0;  // over the turns whose server said what it cached
  for (auto& [turn, t] : turns) {
    prompt_sum += t.cached_prompt_sum;
    cached_sum += t.cached_sum;
    SessionTurnRow row;
    row.turn = turn;
    row.requests = t.requests;
    row.failed = t.failed;
    if (t.prompts > 0) row.prompt_tokens_mean = t.prompt_sum / static_cast<double>(t.prompts);
    if (t.cached_prompt_sum > 0) row.cached_share = t.cached_sum / t.cached_prompt_sum;
    row.ttft_p50_ms = session_quantile(t.ttft_ms, 0.5);
    row.ttft_p90_ms = session_quantile(t.ttft_ms, 0.9);
    row.decode_tok_s_p50 = session_quantile(t.decode_tok_s, 0.5);
    out.by_turn.push_back(row);
  }
  if (last_end > first_send) {
    out.elapsed_s = static_cast<double>(last_end - first_send) / 1e9;
    out.output_tok_s = static_cast<double>(output_tokens) / out.elapsed_s;
  }
  if (prompt_sum > 0) out.cache_hit_rate = cached_sum / prompt_sum;
  out.ttft_cached_p50_ms = session_quantile(cached_ttft, 0.5);
  out.ttft_cold_p50_ms = session_quantile(cold_ttft, 0.5);
  if (trace) out.send_late_p90_ms = session_quantile(late_ms, 0.9);
  return out;
}

}  // namespace sm
