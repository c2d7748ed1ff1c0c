// The output checks on real streams (issue 32): a scripted server whose model loops, or writes
// replacement characters, gets its cell flagged with an excerpt; varied text does not.
#include <gtest/gtest.h>

#include <string>

#include "bench/closed_loop.h"
#include "engines/request_builder.h"
#include "metrics/cell_metrics.h"
#include "support/scripted_server.h"

namespace sm {
namespace {

using test::ScriptedServer;
using test::ScriptedServerOptions;
using test::StreamScript;

constexpr int64_t kMaxTokens = 400;

DecodeCell run_cell(std::function<std::string(int64_t)> token_text, bool chat = false) {
  ScriptedServerOptions opts;
  opts.script = [token_text](const test::RequestInfo&) {
    StreamScript s;
    s.ttft_ns = 0;
    s.token_interval_ns = 0;
    s.tokens_per_chunk = 4;
    s.token_text = token_text;
    return s;
  };
  ScriptedServer server(opts);
  CompletionSpec spec;
  spec.model = "scripted-model";
  spec.prompt = "hello world";
  spec.max_tokens = kMaxTokens;
  ClosedLoop loop(SteadyClock::instance(), StreamClientOptions{});
  LoopSpec ls;
  const ApiKind api = chat ? ApiKind::Chat : ApiKind::Completions;
  ls.request = HttpRequest{server.url() + (chat ? "/v1/chat/completions" : "/v1/completions"),
                           build_completion_body(EngineKind::Vllm, api, spec), {}};
  ls.concurrency = 3;
  ls.max_tokens = kMaxTokens;
  ls.total_requests = 6;  // a burst: six whole requests through three slots
  LoopOutcome out = loop.run(ls);
  EXPECT_FALSE(out.error.has_value());
  DecodeCell cell;
  cell.concurrency = 3;
  compute_burst_metrics(out.records, -1, cell);
  return cell;
}

TEST(OutputChecks, AModelThatLoopsFlagsItsCell) {
  const DecodeCell cell = run_cell([](int64_t) { return std::string("]"); });
  ASSERT_TRUE(cell.output_check.has_value());
  EXPECT_EQ(cell.output_check->requests, 6);
  EXPECT_EQ(cell.output_check->repeat, 6);
  EXPECT_EQ(cell.output_check->verdict, "loop");
  EXPECT_EQ(cell.output_check->excerpt, "]");
}

TEST(OutputChecks, ALoopInTheChatStreamToo) {
  const DecodeCell cell = run_cell([](int64_t i) { return i < 20 ? " w" + std::to_string(i) : std::string(" again and"); }, true);
  ASSERT_TRUE(cell.output_check.has_value());
  EXPECT_EQ(cell.output_check->verdict, "loop");
  EXPECT_EQ(cell.output_check->excerpt, " again and");
}

TEST(OutputChecks, ReplacementCharactersAreNotText) {
  const DecodeCell cell = run_cell([](int64_t) { return std::string("\\ufffd"); });
  ASSERT_TRUE(cell.output_check.has_value());
  // One character over and over is also a loop; the verdict names the worst.
  EXPECT_EQ(cell.output_check->verdict, "loop");
  const DecodeCell mixed = run_cell([](int64_t i) { return i % 7 == 0 ? " w" + std::to_string(i) : std::string("\\ufffd\\u0001"); });
  ASSERT_TRUE(mixed.output_check.has_value());
  EXPECT_EQ(mixed.output_check->not_text, 6);
  EXPECT_EQ(mixed.output_check->verdict, "not_text");
}

TEST(OutputChecks, VariedTextIsOk) {
  const DecodeCell cell = run_cell({});
  ASSERT_TRUE(cell.output_check.has_value());
  EXPECT_EQ(cell.output_check->requests, 6);
  EXPECT_EQ(cell.output_check->verdict, "ok");
  EXPECT_EQ(cell.output_check->repeat + cell.output_check->empty + cell.output_check->not_text +
                cell.output_check->count_mismatch,
            0);
}

}  // namespace
}  // namespace sm
