// Every way a server can misbehave ends with the request counted as failed (or the cell marked
// error) with its reason, and nothing already measured lost.
#include <gtest/gtest.h>

#include "bench/closed_loop.h"
#include "bench/runner.h"
#include "engines/request_builder.h"
#include "result/result_json.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

using test::RequestInfo;
using test::ScriptedServer;
using test::ScriptedServerOptions;
using test::StreamScript;

ScriptedServerOptions with_script(std::function<void(StreamScript&)> edit) {
  ScriptedServerOptions opts;
  opts.script = [edit](const RequestInfo&) {
    StreamScript s;
    s.token_interval_ns = 1 * kNsPerMs;
    s.ttft_ns = 2 * kNsPerMs;
    edit(s);
    return s;
  };
  return opts;
}

RequestRecord one_request(const std::string& base_url, int64_t max_tokens = 20, double read_timeout_s = 600,
                          double connect_timeout_s = 10) {
  CompletionSpec spec;
  spec.model = "scripted-model";
  spec.prompt = "hi";
  spec.max_tokens = max_tokens;
  ClosedLoop loop(SteadyClock::instance(), StreamClientOptions{connect_timeout_s, read_timeout_s});
  LoopSpec ls;
  ls.request = HttpRequest{base_url + "/v1/completions", build_completion_body(EngineKind::Vllm, ApiKind::Completions, spec), {}};
  ls.max_tokens = max_tokens;
  LoopOutcome out = loop.run(ls);
  EXPECT_EQ(out.records.size(), 1u);
  return out.records.empty() ? RequestRecord{} : out.records[0];
}

TEST(Faults, ServerClosesMidStream) {
  ScriptedServer server(with_script([](StreamScript& s) { s.close_after_chunks = 5; }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.end, RequestEnd::Failed);
  EXPECT_EQ(r.error_code, ErrorCode::Network);
  EXPECT_EQ(r.tokens, 5);  // what arrived before the drop is kept
}

TEST(Faults, StallPastReadTimeout) {
  ScriptedServer server(with_script([](StreamScript& s) { s.stall_after_chunks = 3; }));
  RequestRecord r = one_request(server.url(), 20, /*read_timeout_s=*/1);
  EXPECT_EQ(r.end, RequestEnd::Failed);
  EXPECT_EQ(r.error_code, ErrorCode::Timeout);
  EXPECT_NE(r.error.find("stalled"), std::string::npos) << r.error;
}

class HttpStatusFault : public ::testing::TestWithParam<int> {};

TEST_P(HttpStatusFault, IsAFailureWithTheStatusAndBody) {
  const int status = GetParam();
  ScriptedServer server(with_script([status](StreamScript& s) {
    s.http_status = status;
    s.error_body = R"({"error":{"message":"busy, try later"}})";
  }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.end, RequestEnd::Failed);
  EXPECT_EQ(r.error_code, ErrorCode::Http);
  EXPECT_NE(r.error.find(std::to_string(status)), std::string::npos);
  EXPECT_NE(r.error.find("busy, try later"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Statuses, HttpStatusFault, ::testing::Values(429, 500, 503));

TEST(Faults, MalformedJsonChunk) {
  ScriptedServer server(with_script([](StreamScript& s) { s.malformed_at_chunk = 4; }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.end, RequestEnd::Failed);
  EXPECT_EQ(r.error_code, ErrorCode::Protocol);
  EXPECT_NE(r.error.find("malformed"), std::string::npos) << r.error;
  EXPECT_EQ(r.tokens, 4);
}

TEST(Faults, InvalidUtf8Chunk) {
  ScriptedServer server(with_script([](StreamScript& s) { s.invalid_utf8_at_chunk = 2; }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.end, RequestEnd::Failed);
  EXPECT_EQ(r.error_code, ErrorCode::Protocol);
}

TEST(Faults, HugeSseLineIsRejectedWithoutHoldingIt) {
  ScriptedServer server(with_script([](StreamScript& s) { s.huge_line_bytes = 10u << 20; }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.end, RequestEnd::Failed);
  EXPECT_EQ(r.error_code, ErrorCode::Protocol);
  EXPECT_NE(r.error.find("longer than"), std::string::npos) << r.error;
}

TEST(Faults, MissingDoneIsFine) {
  ScriptedServer server(with_script([](StreamScript& s) { s.send_done = false; }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.end, RequestEnd::Finished);
  EXPECT_FALSE(r.saw_done);
  EXPECT_EQ(r.tokens, 20);
}

// No usage: the chunks are counted, and finish_reason "length" vouches for max_tokens.
TEST(Faults, MissingUsageFallsBackToChunkCounting) {
  ScriptedServer server(with_script([](StreamScript& s) {
    s.honour_include_usage = false;
    s.honour_continuous_usage = false;
  }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.end, RequestEnd::Finished);
  EXPECT_EQ(r.source, TokenSource::FinishLength);
  EXPECT_EQ(r.usage_completion_tokens, -1);
  EXPECT_EQ(r.tokens, 20);
}

// No usage and finish reason "stop": nothing to check against, one token per chunk.
TEST(Faults, NoUsageAndStopCountsChunks) {
  ScriptedServer server(with_script([](StreamScript& s) {
    s.honour_include_usage = false;
    s.honour_continuous_usage = false;
    s.output_tokens = 12;  // ends early, without "length"
  }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.source, TokenSource::Chunks);
  EXPECT_EQ(r.end, RequestEnd::EndedEarly);
  EXPECT_EQ(r.tokens, 12);
}

TEST(Faults, ZeroTokenChunkIsNotAToken) {
  ScriptedServer server(with_script([](StreamScript& s) {
    s.zero_token_chunk_at = 3;
    s.honour_continuous_usage = false;
  }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.end, RequestEnd::Finished);
  EXPECT_EQ(r.tokens, 20);
  EXPECT_EQ(r.chunks.size(), 20u);
}

TEST(Faults, PingCommentsAndCrlfAreTolerated) {
  ScriptedServer server(with_script([](StreamScript& s) {
    s.ping_comments = true;
    s.crlf = true;
  }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.end, RequestEnd::Finished);
  EXPECT_EQ(r.tokens, 20);
}

TEST(Faults, EarlyStopIsCountedAndFlagged) {
  ScriptedServer server(with_script([](StreamScript& s) { s.output_tokens = 7; }));
  RequestRecord r = one_request(server.url());
  EXPECT_EQ(r.end, RequestEnd::EndedEarly);
  EXPECT_EQ(r.tokens, 7);
}

// llama-server puts the final usage on its finishing chunk (with choices, no text): that is a
// total, not one more chunk of tokens.
TEST(Faults, LlamaCppFinishChunkUsageIsATotal) {
  for (bool timings : {false, true}) {
    ScriptedServer server(with_script([](StreamScript& s) { s.llamacpp_style = true; }));
    CompletionSpec spec;
    spec.model = "m";
    spec.prompt = "hi";
    spec.max_tokens = 20;
    ClosedLoop loop(SteadyClock::instance(), StreamClientOptions{});
    LoopSpec ls;
    EngineKind kind = timings ? EngineKind::LlamaCpp : EngineKind::OpenAi;
    ls.request = HttpRequest{server.url() + "/v1/completions", build_completion_body(kind, ApiKind::Completions, spec), {}};
    ls.max_tokens = 20;
    RequestRecord r = loop.run(ls).records.at(0);
    EXPECT_EQ(r.end, RequestEnd::Finished);
    EXPECT_EQ(r.tokens, 20);
    EXPECT_EQ(r.chunks.size(), 20u);
    EXPECT_EQ(r.usage_completion_tokens, 20);
    EXPECT_EQ(r.source, timings ? TokenSource::Timings : TokenSource::UsageFinal);
    EXPECT_DOUBLE_EQ(r.server_tok_s, 200.0);
  }
}

TEST(Faults, ConnectionRefused) {
  int port;
  {
    ScriptedServer server;
    port = server.port();
  }  // closed: nothing listens there now
  RequestRecord r = one_request("http://127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(r.end, RequestEnd::Failed);
  EXPECT_EQ(r.error_code, ErrorCode::Network);
}

TEST(Faults, HostDoesNotResolve) {
  RequestRecord r = one_request("http://speedmatrix-no-such-host.invalid", 20, 600, 3);
  EXPECT_EQ(r.end, RequestEnd::Failed);
  EXPECT_TRUE(r.error_code == ErrorCode::Network || r.error_code == ErrorCode::Timeout) << r.error;
}

// A cell whose every request fails is marked error with the reason; the run goes on and the
// cells measured before it stay in the result.
TEST(Faults, FailingCellIsMarkedErrorAndTheRunGoesOn) {
  ScriptedServerOptions opts;
  opts.script = [](const RequestInfo& info) {
    StreamScript s;
    s.token_interval_ns = 2 * kNsPerMs;
    // Context-0 streams work; the 200-word row's long requests all fail with 500.
    if (info.prompt_tokens >= 200 && info.max_tokens > 1) s.http_status = 500;
    return s;
  };
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {0, 200};
  c.contexts_given = true;
  c.matrix.concurrency = {1, 2};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 32;
  c.matrix.duration_s = 0.3;
  c.out_dir = dir.file("run");
  c.quiet = true;
  c.client_selftest = false;  // the test binary has no streamer subcommand
  c.json_output = true;
  ASSERT_EQ(run_matrix(c), kExitCellErrors);  // the run goes on, and its exit status says a cell failed
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value());
  ASSERT_EQ(result->decode.size(), 4u);
  EXPECT_EQ(result->decode[0].status, CellStatus::Valid);
  EXPECT_EQ(result->decode[1].status, CellStatus::Valid);
  EXPECT_GT(*result->decode[1].total_tok_s, 0);
  for (int i : {2, 3}) {
    EXPECT_EQ(result->decode[i].status, CellStatus::Error);
    EXPECT_NE(result->decode[i].error.find("500"), std::string::npos) << result->decode[i].error;
  }
  // Context 200 had no valid cell before its second one: that cell warmed the prompt up again
  // (one warm-up each), where context 0's second cell, after a valid one, needed none.
  int64_t warmups_200 = 0;
  for (const auto& served : server.records()) warmups_200 += served.info.prompt_tokens >= 200 && served.info.max_tokens == 1;
  EXPECT_EQ(warmups_200, 2);
}

}  // namespace
}  // namespace sm
