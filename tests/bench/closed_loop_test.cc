#include "bench/closed_loop.h"

#include <gtest/gtest.h>

#include "engines/request_builder.h"
#include "metrics/stats.h"
#include "support/scripted_server.h"
#include "support/server_records.h"

namespace sm {
namespace {

using test::ScriptedServer;
using test::ScriptedServerOptions;
using test::StreamScript;

HttpRequest completion_request(const ScriptedServer& server, int64_t max_tokens, bool continuous = true) {
  CompletionSpec spec;
  spec.model = "scripted-model";
  spec.prompt = "hello world";
  spec.max_tokens = max_tokens;
  EngineKind kind = continuous ? EngineKind::Vllm : EngineKind::OpenAi;
  return HttpRequest{server.url() + "/v1/completions", build_completion_body(kind, ApiKind::Completions, spec), {}};
}

struct CellRun {
  LoopOutcome outcome;
  DecodeCell client;
  DecodeCell server;
};

CellRun run_cell(ScriptedServer& server, int64_t n, int64_t max_tokens, double duration_s, bool continuous = true,
                 StreamClientOptions options = {}) {
  ClosedLoop loop(SteadyClock::instance(), options);
  LoopSpec spec;
  spec.request = completion_request(server, max_tokens, continuous);
  spec.concurrency = n;
  spec.max_tokens = max_tokens;
  spec.duration_ns = static_cast<int64_t>(duration_s * 1e9);
  spec.ramp_timeout_ns = 30 * kNsPerS;
  CellRun run;
  run.outcome = loop.run(spec);
  run.client.concurrency = n;
  run.server.concurrency = n;
  compute_decode_metrics(run.outcome.records, run.outcome.window, -1, run.client);
  server.stop();  // the server's record is complete once its threads are joined
  auto served = test::to_request_records(server.records());
  compute_decode_metrics(served, run.outcome.window, -1, run.server);
  return run;
}

class ClosedLoopRates : public ::testing::TestWithParam<int64_t> {};

// 1 token every 5 ms per stream after a 20 ms TTFT: ~200 tok/s per request and N times that in
// total, and the client's numbers agree with the server's own record within 1%.
TEST_P(ClosedLoopRates, MatchesServerRecordWithinOnePercent) {
  const int64_t n = GetParam();
  ScriptedServer server;
  CellRun run = run_cell(server, n, 20000, 1.5);
  ASSERT_TRUE(run.outcome.window_opened);
  ASSERT_FALSE(run.outcome.error.has_value());
  const DecodeCell& c = run.client;
  const DecodeCell& s = run.server;
  EXPECT_NEAR(*c.measured_s, 1.5, 0.01);
  EXPECT_TRUE(test::within_relative(*c.total_tok_s, *s.total_tok_s, 0.01)) << *c.total_tok_s << " vs " << *s.total_tok_s;
  EXPECT_TRUE(test::within_relative(*c.per_request_tok_s, *s.per_request_tok_s, 0.01))
      << *c.per_request_tok_s << " vs " << *s.per_request_tok_s;
  EXPECT_TRUE(test::within_relative(*c.tbt_ms, *s.tbt_ms, 0.01)) << *c.tbt_ms << " vs " << *s.tbt_ms;
  EXPECT_TRUE(test::within_relative(*c.avg_active, *s.avg_active, 0.01));
  EXPECT_TRUE(test::within_relative(*c.effective_concurrency, static_cast<double>(n), 0.01));
  EXPECT_EQ(c.token_count_source, "usage_continuous");
  // And the nominal script, loosely (the machine may be busy; the record is what counts).
  EXPECT_GT(*c.per_request_tok_s, 150);
  EXPECT_LT(*c.per_request_tok_s, 205);
  EXPECT_GT(*c.total_tok_s, 150.0 * static_cast<double>(n));
}

INSTANTIATE_TEST_SUITE_P(Concurrency, ClosedLoopRates, ::testing::Values(1, 4, 16, 64));

// 64 streams at ~200 tok/s are ~13,000 chunks/s, close enough together that the loop busy-polls
// by default (the case above); with busy polling off it sleeps between reads, and the numbers
// must still be the server's.
TEST(ClosedLoop, SleepingLoopMatchesServerRecordToo) {
  ScriptedServer server;
  StreamClientOptions options;
  options.busy_poll_ns = 0;
  CellRun run = run_cell(server, 64, 20000, 1.5, true, options);
  ASSERT_TRUE(run.outcome.window_opened);
  EXPECT_TRUE(test::within_relative(*run.client.total_tok_s, *run.server.total_tok_s, 0.01))
      << *run.client.total_tok_s << " vs " << *run.server.total_tok_s;
  EXPECT_TRUE(test::within_relative(*run.client.tbt_ms, *run.server.tbt_ms, 0.01));
}

StreamScript three_per_chunk(const test::RequestInfo&) {
  StreamScript s;
  s.tokens_per_chunk = 3;
  s.token_interval_ns = 15 * kNsPerMs;
  return s;
}

// With continuous usage the stream says how many tokens each chunk carried.
TEST(ClosedLoop, MultiTokenChunksCountEveryToken) {
  ScriptedServerOptions opts;
  opts.script = three_per_chunk;
  ScriptedServer server(opts);
  CellRun run = run_cell(server, 2, 20000, 1.0);
  EXPECT_EQ(run.client.token_count_source, "usage_continuous");
  EXPECT_NEAR(*run.client.tokens_per_chunk, 3.0, 0.01);
  EXPECT_TRUE(test::within_relative(*run.client.total_tok_s, *run.server.total_tok_s, 0.01));
  // 3 tokens per 15 ms chunk share the gap: 5 ms between tokens, 15 ms between chunks.
  EXPECT_TRUE(test::within_relative(*run.client.tbt_ms, *run.server.tbt_ms, 0.01));
  EXPECT_TRUE(test::within_relative(*run.client.chunk_gap_ms, *run.server.chunk_gap_ms, 0.01));
  EXPECT_TRUE(test::within_relative(*run.client.per_request_tok_s, *run.server.per_request_tok_s, 0.01));
}

// Without per-chunk counts, the final usage of each finished request reconciles its chunks.
TEST(ClosedLoop, FinalUsageReconcilesChunkCounts) {
  ScriptedServerOptions opts;
  opts.script = three_per_chunk;
  ScriptedServer server(opts);
  CellRun run = run_cell(server, 2, 30, 1.0, /*continuous=*/false);
  // Finished requests are reconciled; the streams cut at the window's end are scaled by them.
  EXPECT_EQ(run.client.token_count_source, "chunks_scaled");
  for (const auto& r : run.outcome.records) {
    if (r.end != RequestEnd::Finished) continue;
    EXPECT_EQ(r.tokens, 30);
    EXPECT_EQ(r.source, TokenSource::UsageFinal);
    for (const auto& c : r.chunks) EXPECT_EQ(c.tokens, 3);
  }
  EXPECT_GE(*run.client.completed, 4);
}

TEST(ClosedLoop, FinishedStreamsAreReplacedAndCounted) {
  ScriptedServer server;
  CellRun run = run_cell(server, 2, 20, 1.0);  // 20 tokens = ~115 ms per request
  EXPECT_GE(*run.client.completed, 10);
  EXPECT_EQ(*run.client.completed, *run.server.completed);
  EXPECT_EQ(*run.client.ended_early, 0);
  EXPECT_EQ(*run.client.requests_failed, 0);
  EXPECT_TRUE(test::within_relative(*run.client.total_tok_s, *run.server.total_tok_s, 0.02));
}

TEST(ClosedLoop, SingleShotRunsOneRequest) {
  ScriptedServer server;
  ClosedLoop loop(SteadyClock::instance(), StreamClientOptions{});
  LoopSpec spec;
  spec.request = completion_request(server, 1);
  spec.max_tokens = 1;
  LoopOutcome out = loop.run(spec);
  ASSERT_EQ(out.records.size(), 1u);
  const RequestRecord& r = out.records[0];
  EXPECT_EQ(r.end, RequestEnd::Finished);
  EXPECT_EQ(r.tokens, 1);
  EXPECT_EQ(r.usage_prompt_tokens, 2);
  EXPECT_TRUE(r.saw_done);
  server.stop();
  auto served = server.records();
  ASSERT_EQ(served.size(), 1u);
  const double server_ttft_ms = static_cast<double>(served[0].chunk_sent_ns[0] - served[0].received_ns) / 1e6;
  const double client_ttft_ms = static_cast<double>(r.first_token_ns - r.send_ns) / 1e6;
  EXPECT_GE(client_ttft_ms, server_ttft_ms);
  // Catches a client that polls or batches (a tick of 100 ms or more); not tighter, because on a
  // loaded 2-core machine the scheduler alone can delay a wake-up by several milliseconds.
  EXPECT_LT(client_ttft_ms - server_ttft_ms, 50.0);
}

TEST(ClosedLoop, BurstSendsExactlyTheRequestsAskedForThroughItsSlots) {
  // 10 requests of 20 tokens through 3 slots: exactly 10 sent, never more than 3 at once, all
  // finished, and the burst's figures agree with the server's record of the same requests.
  ScriptedServer server;
  ClosedLoop loop(SteadyClock::instance(), StreamClientOptions{});
  LoopSpec spec;
  spec.request = completion_request(server, 20);
  spec.concurrency = 3;
  spec.max_tokens = 20;
  spec.total_requests = 10;
  LoopOutcome out = loop.run(spec);
  ASSERT_EQ(out.records.size(), 10u);
  for (const auto& r : out.records) EXPECT_EQ(r.end, RequestEnd::Finished);
  std::vector<Interval> in_flight;
  for (const auto& r : out.records) in_flight.push_back({r.send_ns, r.end_ns});
  for (const auto& a : in_flight) {
    int overlapping = 0;
    for (const auto& b : in_flight) overlapping += b.begin_ns <= a.begin_ns && a.begin_ns < b.end_ns;
    EXPECT_LE(overlapping, 3);
  }
  DecodeCell cell;
  cell.concurrency = 3;
  compute_burst_metrics(out.records, -1, cell);
  server.stop();
  ASSERT_EQ(server.records().size(), 10u);
  EXPECT_EQ(*cell.output_tokens, 200);
  EXPECT_EQ(*cell.completed, 10);
  EXPECT_DOUBLE_EQ(*cell.total_tok_s, 200.0 / *cell.measured_s);
  ASSERT_TRUE(cell.e2e_ms && cell.tpot_ms);
  EXPECT_LE(*cell.e2e_ms, *cell.e2e_p90_ms);
  EXPECT_LE(*cell.e2e_p90_ms, *cell.e2e_p99_ms);
  // Time per output token as the server sent them (median over requests of the span between its
  // first and last chunk ÷ 19): the client's figure matches it.
  std::vector<double> server_tpot_ms;
  for (const auto& r : server.records())
    server_tpot_ms.push_back(static_cast<double>(r.chunk_sent_ns.back() - r.chunk_sent_ns.front()) / 1e6 / 19);
  EXPECT_TRUE(test::within_relative(*cell.tpot_ms, median(server_tpot_ms), 0.2));
  EXPECT_GT(*cell.e2e_ms, *cell.ttft_ms);
  EXPECT_FALSE(cell.total_tok_s_ci.has_value());
}

TEST(ClosedLoop, AWindowThatSettlesClosesEarly) {
  // The stopping rule says "settled" once it sees 1 s of window: the window closes there, long
  // before its 20 s, and the outcome says so.
  ScriptedServer server;
  ClosedLoop loop(SteadyClock::instance(), StreamClientOptions{});
  LoopSpec spec;
  spec.request = completion_request(server, 4000);  // 20 s of tokens: no stream ends in the window
  spec.concurrency = 2;
  spec.max_tokens = 4000;
  spec.duration_ns = 20 * kNsPerS;
  spec.ramp_timeout_ns = 30 * kNsPerS;
  int asked = 0;
  spec.window_settled = [&](const std::vector<RequestRecord>& records, DecodeWindow so_far) {
    ++asked;
    EXPECT_EQ(records.size(), 2u);
    return so_far.end_ns - so_far.begin_ns >= kNsPerS;
  };
  LoopOutcome out = loop.run(spec);
  server.stop();
  ASSERT_FALSE(out.error) << out.error->message;
  EXPECT_TRUE(out.closed_early);
  EXPECT_GE(asked, 2);
  EXPECT_GE(out.window.end_ns - out.window.begin_ns, kNsPerS);
  EXPECT_LT(out.window.end_ns - out.window.begin_ns, 20 * kNsPerS);
}

TEST(ClosedLoop, BurstSmallerThanItsSlotsSendsOnlyItsRequests) {
  ScriptedServer server;
  ClosedLoop loop(SteadyClock::instance(), StreamClientOptions{});
  LoopSpec spec;
  spec.request = completion_request(server, 5);
  spec.concurrency = 8;
  spec.max_tokens = 5;
  spec.total_requests = 3;
  LoopOutcome out = loop.run(spec);
  EXPECT_EQ(out.records.size(), 3u);
  server.stop();
  EXPECT_EQ(server.records().size(), 3u);
}

}  // namespace
}  // namespace sm
