// The open-loop driver against the scripted server: known service times give known latencies
// and a known saturation rate, and a stall — of the client or of the server — shows up in the
// latencies of the requests that were due during it (no coordinated omission).
#include "bench/open_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "bench/sweep.h"
#include "core/interrupt.h"
#include "engines/request_builder.h"
#include "support/fifo_queue.h"
#include "support/scripted_server.h"
#include "workload/arrivals.h"

namespace sm {
namespace {

using test::ScriptedServer;
using test::ScriptedServerOptions;

HttpRequest completion(const ScriptedServer& server, int64_t max_tokens) {
  CompletionSpec spec;
  spec.model = "scripted-model";
  spec.prompt = "hello world";
  spec.max_tokens = max_tokens;
  return HttpRequest{server.url() + "/v1/completions",
                     build_completion_body(EngineKind::Vllm, ApiKind::Completions, spec), {}};
}

OpenLoopSpec schedule(const ScriptedServer& server, const std::vector<int64_t>& times, int64_t max_tokens) {
  OpenLoopSpec spec;
  spec.drain_timeout_ns = 30 * kNsPerS;
  for (int64_t t : times) spec.requests.push_back(PlannedRequest{t, completion(server, max_tokens), max_tokens});
  return spec;
}

std::vector<int64_t> constant(double rate, double window_s) {
  Rng unused(1);
  return arrival_times_ns(ArrivalProcess::Constant, rate, static_cast<int64_t>(window_s * 1e9), 0, unused);
}

ScriptedServerOptions fifo_options(test::FifoScript& script) {
  ScriptedServerOptions o;
  o.script = [&script](const test::RequestInfo& info) { return script.pick(info); };
  return o;
}

// 20 ms of service (14 ms to the first token, then 3 tokens 2 ms apart), one request at a time.
// At 10/s nothing queues: TTFT ≈ 14 ms, TPOT ≈ 2 ms, E2E ≈ 20 ms, and every request completes.
TEST(OpenLoop, KnownServiceTimesGiveKnownLatencies) {
  const test::FifoService service;  // 14 ms + 3 × 2 ms
  test::FifoScript script(service);
  ScriptedServer server(fifo_options(script));
  OpenLoop loop(SteadyClock::instance(), {});
  const int64_t window_ns = kNsPerS;
  OpenLoopOutcome out = loop.run(schedule(server, constant(10, 1.0), service.tokens));
  ASSERT_EQ(out.requests.size(), 10u);
  SweepPoint p;
  compute_rate_point(out.requests, out.start_ns, window_ns, SloTargets{100.0, 10.0}, SaturationRule{}, p);
  EXPECT_EQ(p.completed, 10);
  EXPECT_EQ(p.failed, 0);
  EXPECT_FALSE(p.saturated) << p.saturation_reason;
  // The script is a floor (the server cannot answer sooner); the ceiling is loose for busy machines.
  EXPECT_GE(p.ttft_ms->p50, 14.0);
  EXPECT_LT(p.ttft_ms->p50, 40.0);
  EXPECT_GE(p.e2e_ms->p50, 20.0);
  EXPECT_LT(p.e2e_ms->p50, 50.0);
  EXPECT_NEAR(p.tpot_ms->p50, 2.0, 1.0);
  EXPECT_DOUBLE_EQ(*p.slo_met_fraction, 1.0);
  // Every request was sent on its own schedule, not after the previous answer.
  for (size_t i = 0; i < out.requests.size(); ++i)
    EXPECT_EQ(out.requests[i].intended_ns - out.start_ns, static_cast<int64_t>(i) * 100 * kNsPerMs);
  // The server saw each request once, with the token counts the client recorded.
  server.stop();
  EXPECT_EQ(server.records().size(), 10u);
  for (const auto& t : out.requests) EXPECT_EQ(t.record.tokens, service.tokens);
}

// The same server under `--rates auto` (constant arrivals, 1 s per rate, from 8/s): the search
// doubles to 64/s, which the 50/s server cannot follow, and estimates the saturation near 50/s.
TEST(OpenLoop, AutoSweepFindsAKnownSaturationRate) {
  const test::FifoService service;
  ASSERT_DOUBLE_EQ(service.capacity_rps(), 50);
  test::FifoScript script(service);
  ScriptedServer server(fifo_options(script));
  OpenLoop loop(SteadyClock::instance(), {});
  RatePlan plan;
  plan.auto_start_rps = 8;
  plan.auto_points = 2;
  SweepInfo sweep;
  auto measure = [&](double rate, bool search) {
    const int64_t window_ns = kNsPerS;
    OpenLoopOutcome out = loop.run(schedule(server, constant(rate, 1.0), service.tokens));
    SweepPoint p;
    p.rate_rps = rate;
    p.search = search;
    compute_rate_point(out.requests, out.start_ns, window_ns, {}, SaturationRule{}, p);
    return p;
  };
  run_sweep(plan, measure, {}, sweep);
  ASSERT_TRUE(sweep.saturation_rps.has_value());
  std::vector<double> probed;
  for (const auto& p : sweep.points)
    if (p.search) probed.push_back(p.rate_rps);
  EXPECT_EQ(probed, (std::vector<double>{8, 16, 32, 64}));
  EXPECT_TRUE(sweep.points[3].saturated);
  EXPECT_GT(*sweep.saturation_rps, 35);
  EXPECT_LE(*sweep.saturation_rps, 52);
}

// A clock that jumps: at `stall_at` (real time) the client "freezes" for `stall_ns` — as a thread
// that was not scheduled, or a client busy elsewhere, would see time.
class StallClock final : public Clock {
 public:
  StallClock(int64_t stall_at_ns, int64_t stall_ns) : stall_at_ns_(stall_at_ns), stall_ns_(stall_ns) {}
  int64_t now_ns() const override {
    const int64_t real = SteadyClock::instance().now_ns();
    return real < stall_at_ns_ ? real : real + stall_ns_;
  }

 private:
  int64_t stall_at_ns_, stall_ns_;
};

// The client stalls for 500 ms from 200 ms into a 20/s schedule. The requests due during the
// stall go out late — all at once when it ends — and their latencies include that lateness:
// TTFT ≥ (stall end − intended start). A driver that timed from the send, or shifted the
// schedule, would report them as fast as the rest.
TEST(OpenLoop, ClientStallCountsInTheLatencyOfRequestsDueDuringIt) {
  ScriptedServer server;
  const int64_t now = SteadyClock::instance().now_ns();
  const int64_t stall_begin = now + 200 * kNsPerMs, stall_ns = 500 * kNsPerMs;
  StallClock clock(stall_begin, stall_ns);
  OpenLoop loop(clock, {});
  OpenLoopOutcome out = loop.run(schedule(server, constant(20, 1.0), 4));
  ASSERT_EQ(out.requests.size(), 20u);
  const int64_t stall_end = stall_begin + stall_ns;  // on the loop's clock
  int64_t due_during = 0;
  for (const auto& t : out.requests) {
    ASSERT_TRUE(t.record.end == RequestEnd::Finished) << t.record.error;
    const RequestLatency l = request_latency(t);
    if (t.intended_ns >= stall_begin && t.intended_ns < stall_end) {
      ++due_during;
      EXPECT_GE(t.record.send_ns, stall_end);
      EXPECT_GE(*l.ttft_ms, static_cast<double>(stall_end - t.intended_ns) / 1e6);
    }
  }
  EXPECT_GE(due_during, 8);  // 10 are due in those 500 ms (the schedule starts just before `now` + 200 ms)
  SweepPoint p;
  compute_rate_point(out.requests, out.start_ns, kNsPerS, {}, SaturationRule{}, p);
  EXPECT_GE(p.send_lag_ms->p99, 250.0);
  EXPECT_GE(p.ttft_ms->p90, 250.0);
}

// Real time plus an offset that the injected idle wait moves: waiting for the next arrival takes
// no real time at all, and a wait can be made to oversleep.
class JumpClock final : public Clock {
 public:
  int64_t now_ns() const override { return SteadyClock::instance().now_ns() + offset_ns; }
  int64_t offset_ns = 0;
};

// The idle wait oversleeps once, by 350 ms, from 200 ms into a 10/s schedule (as a descheduled
// client would): the four requests due meanwhile go out at once when it wakes, keep their
// intended starts, and their TTFTs carry the lateness — at least 350, 250, 150 and 50 ms. The
// schedule after them is not shifted.
TEST(OpenLoop, OversleptArrivalsGoOutAtOnceAndKeepTheirIntendedStart) {
  ScriptedServer server;
  JumpClock clock;
  int waits = 0;
  OpenLoop loop(clock, {}, [&](int64_t deadline_ns) {
    const int64_t late_ns = ++waits == 2 ? 350 * kNsPerMs : 0;
    clock.offset_ns += std::max<int64_t>(0, deadline_ns - clock.now_ns()) + late_ns;
  });
  OpenLoopOutcome out = loop.run(schedule(server, constant(10, 1.0), 2));
  ASSERT_EQ(out.requests.size(), 10u);
  for (size_t i = 0; i < out.requests.size(); ++i) {
    const TimedRequest& t = out.requests[i];
    ASSERT_EQ(t.record.end, RequestEnd::Finished) << t.record.error;
    EXPECT_EQ(t.intended_ns - out.start_ns, static_cast<int64_t>(i) * 100 * kNsPerMs);
    EXPECT_GE(t.record.send_ns, t.intended_ns);
  }
  const int64_t woke_ns = out.start_ns + 550 * kNsPerMs;  // the second wait ended here, or later
  for (size_t i = 2; i <= 5; ++i) {
    const TimedRequest& t = out.requests[i];
    EXPECT_GE(t.record.send_ns, woke_ns);
    EXPECT_GE(*request_latency(t).ttft_ms, static_cast<double>(woke_ns - t.intended_ns) / 1e6) << i;
  }
  // Requests 2-5 went out together, before request 6 was due.
  EXPECT_LT(out.requests[5].record.send_ns, out.requests[6].intended_ns);
}

// The server stalls: every first token it would write in [200 ms, 700 ms) waits for 700 ms. The
// client keeps sending on schedule during the stall (open loop), and each request due in it has
// TTFT ≥ (stall end − intended start).
TEST(OpenLoop, ServerStallCountsInTheLatencyOfRequestsDueDuringIt) {
  std::atomic<int64_t> stall_begin{INT64_MAX}, stall_end{INT64_MAX};
  ScriptedServerOptions o;
  o.script = [&](const test::RequestInfo&) {
    test::StreamScript s;
    s.output_tokens = 4;
    s.token_interval_ns = 2 * kNsPerMs;
    const int64_t now = SteadyClock::instance().now_ns();
    s.ttft_ns = 5 * kNsPerMs;
    if (now + s.ttft_ns >= stall_begin.load() && now < stall_end.load()) s.ttft_ns = stall_end.load() - now;
    return s;
  };
  ScriptedServer server(o);
  OpenLoop loop(SteadyClock::instance(), {});
  OpenLoopSpec spec = schedule(server, constant(20, 1.0), 4);
  // The schedule starts when run() reads the clock; set the stall relative to a start taken now,
  // with the loop's real start at most a little later (checked below).
  const int64_t t0 = SteadyClock::instance().now_ns();
  stall_begin = t0 + 200 * kNsPerMs;
  stall_end = t0 + 700 * kNsPerMs;
  OpenLoopOutcome out = loop.run(spec);
  ASSERT_EQ(out.requests.size(), 20u);
  ASSERT_LT(out.start_ns - t0, 50 * kNsPerMs);
  int64_t due_during = 0, sent_during = 0;
  for (const auto& t : out.requests) {
    ASSERT_TRUE(t.record.end == RequestEnd::Finished) << t.record.error;
    if (t.intended_ns >= stall_begin && t.intended_ns < stall_end) {
      ++due_during;
      EXPECT_GE(*request_latency(t).ttft_ms, static_cast<double>(stall_end - t.intended_ns) / 1e6);
      sent_during += t.record.send_ns < stall_end;
    }
  }
  EXPECT_GE(due_during, 9);
  // Open loop: the stall does not hold the sends back (a closed loop would have sent none).
  EXPECT_EQ(sent_during, due_during);
}

// An answer still running at the drain timeout is cut and counted as failed, with the reason.
TEST(OpenLoop, DrainTimeoutCutsAndFailsStragglers) {
  ScriptedServerOptions o;
  o.script = [](const test::RequestInfo& info) {
    test::StreamScript s;
    if (info.index == 1) s.stall_after_chunks = 1;  // the second request never finishes
    s.output_tokens = 3;
    return s;
  };
  ScriptedServer server(o);
  OpenLoop loop(SteadyClock::instance(), {});
  OpenLoopSpec spec = schedule(server, constant(20, 0.2), 3);
  spec.drain_timeout_ns = 300 * kNsPerMs;
  OpenLoopOutcome out = loop.run(spec);
  ASSERT_EQ(out.requests.size(), 4u);
  EXPECT_TRUE(out.drain_timed_out);
  int64_t failed = 0;
  for (const auto& t : out.requests) failed += t.record.end == RequestEnd::Failed;
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(out.requests[1].record.end, RequestEnd::Failed);
  EXPECT_NE(out.requests[1].record.error.find("drain timeout"), std::string::npos);
}

// Ctrl-C during a schedule (here requested from the progress tick): the loop stops at once, says
// so, sends nothing more, and every request it did send has ended (finished or cut).
TEST(OpenLoop, InterruptStopsTheScheduleAndKeepsWhatWasSent) {
  ScriptedServer server;
  OpenLoop loop(SteadyClock::instance(), {});
  OpenLoopSpec spec = schedule(server, constant(20, 1.0), 4);
  int ticks = 0;
  spec.on_tick = [&] {
    if (++ticks == 2) request_interrupt();  // the second tick comes ~250 ms in
  };
  OpenLoopOutcome out = loop.run(spec);
  reset_interrupt();
  EXPECT_TRUE(out.interrupted);
  EXPECT_GE(out.requests.size(), 1u);
  EXPECT_LT(out.requests.size(), 20u);
  for (const auto& t : out.requests) EXPECT_NE(t.record.end, RequestEnd::Running);
}

}  // namespace
}  // namespace sm
