// Whatever the server does, `run` ends, keeps what it measured, and says why a row or cell failed:
// a server that ignores max_tokens, one that keeps the connection busy without ever answering,
// and decode cells in which a stream failed.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "bench/runner.h"
#include "result/result_json.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

using test::RequestInfo;
using test::ScriptedServer;
using test::ScriptedServerOptions;
using test::StreamScript;

RunConfig small_config(const ScriptedServer& server, const std::string& out_dir) {
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {0, 256};
  c.contexts_given = true;
  c.matrix.concurrency = {1, 2};
  c.matrix.prefill_contexts = {256};
  c.matrix.max_output_tokens = 64;
  c.matrix.duration_s = 0.3;
  c.out_dir = out_dir;
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  return c;
}

const PrefillRow& prefill_row(const RunResult& r, int64_t context) {
  for (const auto& row : r.prefill)
    if (row.context == context) return row;
  throw std::runtime_error("no prefill row");
}

const DecodeCell& decode_cell(const RunResult& r, int64_t context, int64_t concurrency) {
  for (const auto& c : r.decode)
    if (c.context == context && c.concurrency == concurrency) return c;
  throw std::runtime_error("no decode cell");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every request streams on and on, whatever max_tokens says. Before, the calibration request
// never ended and the run hung; now each request is cut past max_tokens and says why.
TEST(HangProof, ServerIgnoringMaxTokensEndsTheRunWithReasons) {
  ScriptedServerOptions opts;
  opts.script = [](const RequestInfo&) {
    StreamScript s;
    s.output_tokens = 1'000'000;
    s.ttft_ns = 1 * kNsPerMs;
    s.token_interval_ns = 200'000;
    return s;
  };
  ScriptedServer server(opts);
  test::TempDir dir;
  run_matrix(small_config(server, dir.file("run")));
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  bool warned = false;
  for (const auto& w : result->warnings) warned |= contains(w, "server ignores max_tokens");
  EXPECT_TRUE(warned);
  const PrefillRow& row = prefill_row(*result, 256);
  EXPECT_EQ(row.status, CellStatus::Error);
  EXPECT_TRUE(contains(row.error, "server ignores max_tokens")) << row.error;
  for (const auto& cell : result->decode) {
    EXPECT_EQ(cell.status, CellStatus::Error) << cell.context << "x" << cell.concurrency;
    EXPECT_TRUE(contains(cell.error, "server ignores max_tokens")) << cell.error;
  }
  // No stream was left to run for ever: each was cut shortly past what it asked for.
  server.stop();
  for (const auto& served : server.records()) EXPECT_LE(served.tokens_sent, served.info.max_tokens + 64);
}

// The 256-token prompt is answered with comments only: bytes flow, so the read timeout never
// fires, and only the request deadline ends it. The run goes on with the other context.
TEST(HangProof, RequestTimeoutEndsAServerThatNeverAnswers) {
  ScriptedServerOptions opts;
  opts.script = [](const RequestInfo& info) {
    StreamScript s;
    s.ttft_ns = 1 * kNsPerMs;
    s.token_interval_ns = 1 * kNsPerMs;
    if (info.prompt_tokens >= 256 && info.max_tokens == 1) {
      s.stall_after_chunks = 0;
      s.stall_ping_interval_ns = 20 * kNsPerMs;
    }
    return s;
  };
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig config = small_config(server, dir.file("run"));
  config.request_timeout_s = 0.5;
  config.target.read_timeout_s = 600;
  run_matrix(config);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  const PrefillRow& row = prefill_row(*result, 256);
  EXPECT_EQ(row.status, CellStatus::Error);
  EXPECT_TRUE(contains(row.error, "--request-timeout")) << row.error;
  EXPECT_EQ(decode_cell(*result, 256, 1).status, CellStatus::Error);
  EXPECT_TRUE(contains(decode_cell(*result, 256, 1).error, "warm-up")) << decode_cell(*result, 256, 1).error;
  EXPECT_EQ(decode_cell(*result, 0, 1).status, CellStatus::Valid);
  EXPECT_EQ(decode_cell(*result, 0, 2).status, CellStatus::Valid);
}

// One decode stream of the 0 x 2 cell is dropped by the server mid-stream: that cell is an error
// (its numbers stay as diagnostics), the others stay valid.
TEST(FailedStreams, InvalidateTheirCell) {
  auto decode_requests = std::make_shared<std::atomic<int>>(0);
  ScriptedServerOptions opts;
  opts.script = [decode_requests](const RequestInfo& info) {
    StreamScript s;
    s.ttft_ns = 1 * kNsPerMs;
    s.token_interval_ns = 20 * kNsPerMs;  // 64 tokens outlast the 0.5 s window: one request per slot
    // Decode streams ask for 64; the 0 x 1 cell's only stream is number 0, then 0 x 2 starts
    // two at once: drop the second of those.
    if (info.max_tokens == 64 && decode_requests->fetch_add(1) == 2) s.close_after_chunks = 5;
    return s;
  };
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig config = small_config(server, dir.file("run"));
  config.matrix.contexts = {0};
  config.matrix.prefill_contexts = {};
  config.matrix.duration_s = 0.5;
  run_matrix(config);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  const DecodeCell& single = decode_cell(*result, 0, 1);
  const DecodeCell& two = decode_cell(*result, 0, 2);
  EXPECT_EQ(single.status, CellStatus::Valid) << single.error;
  EXPECT_EQ(two.status, CellStatus::Error);
  EXPECT_TRUE(contains(two.error, "1 of ")) << two.error;
  EXPECT_TRUE(contains(two.error, "requests failed")) << two.error;
  EXPECT_EQ(*two.requests_failed, 1);
  EXPECT_TRUE(two.total_tok_s.has_value());  // kept as a diagnostic
}

}  // namespace
}  // namespace sm
