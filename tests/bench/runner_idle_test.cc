// The whole run against a scripted server that stays busy, queues, has no metrics, or is SGLang
// (issue 11, point 4): the next cell waits for the server to be idle or is an error, the
// server's own concurrency is recorded per cell, and SGLang's cut requests are aborted by id.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "bench/runner.h"
#include "report/report.h"
#include "result/result_json.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

using test::ScriptedServer;
using test::ScriptedServerOptions;

constexpr int64_t kLongOutput = 4096;  // 5 ms a token: no stream ends inside a window; all are cut

RunConfig decode_only(const ScriptedServer& server, const std::string& out_dir, std::vector<int64_t> concurrency) {
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {0};
  c.contexts_given = true;
  c.matrix.concurrency = std::move(concurrency);
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = kLongOutput;
  c.matrix.duration_s = 0.6;
  c.out_dir = out_dir;
  c.quiet = true;
  c.client_selftest = false;  // the test binary has no streamer subcommand
  c.json_output = true;
  return c;
}

RunResult read_result(const test::TempDir& dir) {
  auto r = read_result_file(dir.file("run/result.json"));
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return r ? *r : RunResult{};
}

const DecodeCell& cell_at(const RunResult& r, int64_t concurrency) {
  auto it = std::find_if(r.decode.begin(), r.decode.end(), [&](const DecodeCell& c) { return c.concurrency == concurrency; });
  EXPECT_NE(it, r.decode.end());
  return *it;
}

// The first cell's two cut streams are still "running" for five more /metrics polls. Without the
// barrier the second cell's window would hold 4 + 2 requests; with it, the server's own count
// over that window is exactly the cell's 4.
TEST(RunnerIdle, NextCellWaitsUntilThePreviousCellsStreamsAreGone) {
  ScriptedServerOptions opts;
  opts.cancelled_linger_polls = 5;
  ScriptedServer server(opts);
  test::TempDir dir;
  ASSERT_EQ(run_matrix(decode_only(server, dir.file("run"), {2, 4})), 0);
  RunResult r = read_result(dir);
  ASSERT_EQ(r.decode.size(), 2u);
  for (const auto& c : r.decode) {
    EXPECT_EQ(c.status, CellStatus::Valid) << c.error;
    ASSERT_TRUE(c.server_running_mean.has_value()) << "sampled during the window";
    EXPECT_DOUBLE_EQ(*c.server_running_mean, static_cast<double>(c.concurrency));
    EXPECT_DOUBLE_EQ(*c.server_waiting_mean, 0.0);
  }
  // Between the first cell's streams and the second cell's first stream, the barrier polled
  // through the five lingering polls before it let the cell start.
  auto all = server.all_requests();
  std::vector<size_t> streams, warmups;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].path != "/v1/completions") continue;
    if (all[i].max_tokens == kLongOutput) streams.push_back(i);
    if (all[i].max_tokens == 1 && !streams.empty()) warmups.push_back(i);
  }
  ASSERT_EQ(streams.size(), 6u) << "2 + 4 streams, none ending inside a window";
  int64_t polls = 0;
  for (size_t i = streams[1]; i < streams[2]; ++i) polls += all[i].path == "/metrics";
  EXPECT_GE(polls, 6);
  // The first cell's streams all read the prompt: the second cell needs no warm-up request.
  EXPECT_TRUE(warmups.empty()) << warmups.size() << " warm-up request(s) after the first cell";
  // Where the time went: the windows are the cells' own, and the phases fit in the total.
  ASSERT_TRUE(r.timing.has_value());
  EXPECT_NEAR(r.timing->windows_s, *r.decode[0].measured_s + *r.decode[1].measured_s, 1e-3);
  EXPECT_GT(r.timing->idle_wait_s, 0.0) << "the barrier waited for the lingering streams";
  EXPECT_GT(r.timing->ramp_s, 0.0);
  EXPECT_EQ(r.timing->prefill_s, 0.0) << "no prefill rows";
  EXPECT_LE(r.timing->accounted_s(), r.timing->total_s);
}

TEST(RunnerIdle, ServerThatStaysBusyMakesTheCellAnErrorAndTheRunGoesOn) {
  ScriptedServerOptions opts;
  opts.cancelled_linger_polls = 1'000'000;  // never drains
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = decode_only(server, dir.file("run"), {2, 4});
  c.drain_timeout_s = 0.5;
  ASSERT_EQ(run_matrix(c), kExitCellErrors);  // the run goes on; its exit status says a cell failed
  RunResult r = read_result(dir);
  EXPECT_EQ(cell_at(r, 2).status, CellStatus::Valid);
  const DecodeCell& busy = cell_at(r, 4);
  EXPECT_EQ(busy.status, CellStatus::Error);
  EXPECT_EQ(busy.error, "server still busy: 2 running, 0 waiting after 0.5 s");
  EXPECT_FALSE(busy.total_tok_s.has_value());
  // Not measured at all: after the first cell's two streams, neither the second cell's warm-up
  // nor any of its streams reached the server.
  auto served = server.records();
  int64_t streams = 0;
  for (const auto& s : served) streams += s.info.max_tokens == kLongOutput;
  EXPECT_EQ(streams, 2);
  ASSERT_FALSE(served.empty());
  EXPECT_EQ(served.back().info.max_tokens, kLongOutput);
}

TEST(RunnerIdle, ServerRunningFewerThanSentIsRecordedAndFlagged) {
  ScriptedServerOptions opts;
  opts.metrics_running_cap = 2;  // an engine that runs 2 and queues the rest
  ScriptedServer server(opts);
  test::TempDir dir;
  ASSERT_EQ(run_matrix(decode_only(server, dir.file("run"), {4})), 0);
  RunResult r = read_result(dir);
  const DecodeCell& c = cell_at(r, 4);
  EXPECT_EQ(c.status, CellStatus::Valid);
  ASSERT_TRUE(c.server_running_mean.has_value());
  EXPECT_DOUBLE_EQ(*c.server_running_mean, 2.0);
  EXPECT_DOUBLE_EQ(*c.server_waiting_mean, 2.0);
  const std::string term = render_report(r, ReportFormat::Term, {});
  EXPECT_NE(term.find("the server ran fewer requests than were sent, by its own count: (2.0/4)*"), std::string::npos)
      << term;
}

TEST(RunnerIdle, WithoutLoadMetricsTheResultSaysNoIdleCheckWasPossible) {
  ScriptedServerOptions opts;
  opts.load_metrics = false;
  opts.kv_capacity_tokens = std::nullopt;  // no /metrics at all
  ScriptedServer server(opts);
  test::TempDir dir;
  ASSERT_EQ(run_matrix(decode_only(server, dir.file("run"), {2})), 0);
  RunResult r = read_result(dir);
  EXPECT_EQ(cell_at(r, 2).status, CellStatus::Valid);
  EXPECT_FALSE(cell_at(r, 2).server_running_mean.has_value());
  int64_t notes = 0;
  for (const auto& w : r.warnings) notes += w.starts_with("No idle check was possible");
  EXPECT_EQ(notes, 1);
  const std::string md = render_report(r, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("No idle check was possible"), std::string::npos);
}

// SGLang keeps generating closed streams: here they linger until /abort_request names them, so
// the second cell can only start because the first cell's requests were aborted by their ids.
TEST(RunnerIdle, SglangCutRequestsAreAbortedByTheirIds) {
  ScriptedServerOptions opts;
  opts.flavour = test::ScriptedFlavour::Sglang;
  opts.cancelled_linger_polls = 1'000'000;
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = decode_only(server, dir.file("run"), {2, 3});
  c.drain_timeout_s = 5;
  ASSERT_EQ(run_matrix(c), 0);
  RunResult r = read_result(dir);
  EXPECT_EQ(r.engine.kind, "sglang");
  EXPECT_EQ(cell_at(r, 2).status, CellStatus::Valid);
  EXPECT_EQ(cell_at(r, 3).status, CellStatus::Valid) << cell_at(r, 3).error;
  std::set<std::string> streams;
  for (const auto& s : server.records())
    if (s.info.max_tokens == kLongOutput) streams.insert(ScriptedServer::request_id(s.info.index));
  EXPECT_EQ(streams.size(), 5u);
  auto aborted = server.aborted_ids();
  EXPECT_EQ(std::set<std::string>(aborted.begin(), aborted.end()), streams);
  EXPECT_EQ(aborted.size(), streams.size());  // each once
}

}  // namespace
}  // namespace sm
