#include "metrics/slo.h"

#include <vector>

#include "metrics/stats.h"

namespace sm {

namespace {

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

bool ended_ok(const RequestRecord& r) { return r.end == RequestEnd::Finished || r.end == RequestEnd::EndedEarly; }

}  // namespace

RequestLatency request_latency(const RequestRecord& r, int64_t start_ns) {
  RequestLatency l;
  l.send_lag_ms = ms(std::max<int64_t>(0, r.send_ns - start_ns));
  l.completed = ended_ok(r);
  if (r.first_token_ns >= 0) l.ttft_ms = ms(r.first_token_ns - start_ns);
  if (r.tokens >= 2 && r.chunks.size() >= 2 && r.first_token_ns >= 0)
    l.tpot_ms = ms(r.chunks.back().t_ns - r.first_token_ns) / static_cast<double>(r.tokens - 1);
  if (l.completed && r.end_ns >= 0) l.e2e_ms = ms(r.end_ns - start_ns);
  return l;
}

bool meets_slo(const RequestLatency& l, const SloTargets& slo) {
  if (!l.completed) return false;
  if (slo.ttft_ms && (!l.ttft_ms || *l.ttft_ms > *slo.ttft_ms)) return false;
  if (slo.tpot_ms && l.tpot_ms && *l.tpot_ms > *slo.tpot_ms) return false;
  return true;
}

bool meets_slo_share(double met_fraction, double percentile) {
  // A hair of slack so that 9 of 10 meets 90% whatever the division rounds to.
  return met_fraction * 100 >= percentile - 1e-9;
}

double goodput_rps(double achieved_rps, int64_t met, int64_t completed) {
  return completed > 0 ? achieved_rps * static_cast<double>(met) / static_cast<double>(completed) : 0;
}

SloJudgement judge_closed_loop(std::span<const RequestRecord> records, DecodeWindow window, const SloTargets& slo) {
  SloJudgement j;
  std::vector<double> ttft, tpot;
  int64_t completed = 0, met_completed = 0, met_tokens = 0;
  const bool windowed = window.end_ns > window.begin_ns;
  for (const auto& r : records) {
    if (r.end == RequestEnd::Running) continue;
    RequestLatency l = request_latency(r, r.send_ns);
    if (r.end == RequestEnd::Cut) {
      // Cut by the measurement, not failed by the server.
      if (r.first_token_ns < 0) {
        const bool waited_past = slo.ttft_ms && r.end_ns >= 0 && ms(r.end_ns - r.send_ns) > *slo.ttft_ms;
        if (!waited_past) continue;  // it could still have met the target
      }
      l.completed = true;
    }
    ++j.requests;
    if (l.ttft_ms) ttft.push_back(*l.ttft_ms);
    if (l.tpot_ms) tpot.push_back(*l.tpot_ms);
    const bool met = meets_slo(l, slo);
    if (met) ++j.met;
    const bool completed_inside = ended_ok(r) && windowed && r.end_ns >= window.begin_ns && r.end_ns < window.end_ns;
    if (completed_inside) {
      ++completed;
      if (met) ++met_completed;
    }
    if (met && windowed)
      for (const auto& c : r.chunks)
        if (c.t_ns >= window.begin_ns && c.t_ns < window.end_ns) met_tokens += c.tokens;
  }
  const double q = slo.percentile / 100;
  if (!ttft.empty()) j.ttft_ms = percentile(ttft, q);
  if (!tpot.empty()) j.tpot_ms = percentile(tpot, q);
  if (j.requests > 0) {
    j.met_fraction = static_cast<double>(j.met) / static_cast<double>(j.requests);
    j.meets = meets_slo_share(*j.met_fraction, slo.percentile);
  }
  if (windowed) {
    const double window_s = static_cast<double>(window.end_ns - window.begin_ns) / 1e9;
    j.achieved_rps = static_cast<double>(completed) / window_s;
    j.goodput_rps = goodput_rps(*j.achieved_rps, met_completed, completed);
    j.goodput_tok_s = static_cast<double>(met_tokens) / window_s;
  }
  return j;
}

}  // namespace sm
