// Token accounting for every stream shape a server may use: the client's numbers for a closed-loop
// cell must match the scripted server's own record of what it sent (within 0.5%), whichever way
// the stream says (or does not say) how many tokens each chunk carried.
#include <gtest/gtest.h>

#include <string>

#include "bench/closed_loop.h"
#include "engines/request_builder.h"
#include "support/scripted_server.h"
#include "support/server_records.h"

namespace sm {
namespace {

using test::RequestInfo;
using test::ScriptedServer;
using test::ScriptedServerOptions;
using test::StreamScript;

struct Shape {
  std::string name;
  EngineKind request_kind;  ///< decides what the request asks for (continuous usage, timings)
  int tokens_per_chunk;
  void (*edit)(StreamScript&);
  std::string expected_source;  ///< the cell's weakest token-count source
};

void no_edit(StreamScript&) {}
void usage_on_last_content_chunk(StreamScript& s) {
  s.usage_on_last_content_chunk = true;
  s.honour_include_usage = false;  // and no separate usage chunk
}
void no_usage(StreamScript& s) { s.honour_include_usage = false; }
void llamacpp(StreamScript& s) { s.llamacpp_style = true; }

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.name; }

constexpr int64_t kMaxTokens = 60;  // ~300 ms a request: finished and cut streams in every window
constexpr int64_t kStreams = 16;  // enough tokens that a chunk or two crossing an edge late stays under 0.5%
constexpr double kWindowS = 2.0;

class StreamShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(StreamShapes, CellMatchesTheServersRecord) {
  const Shape& shape = GetParam();
  ScriptedServerOptions opts;
  opts.script = [shape](const RequestInfo&) {
    StreamScript s;
    s.tokens_per_chunk = shape.tokens_per_chunk;
    s.token_interval_ns = 5 * kNsPerMs * shape.tokens_per_chunk;
    shape.edit(s);
    return s;
  };
  ScriptedServer server(opts);

  CompletionSpec spec;
  spec.model = "scripted-model";
  spec.prompt = "hello world";
  spec.max_tokens = kMaxTokens;
  ClosedLoop loop(SteadyClock::instance(), StreamClientOptions{});
  LoopSpec ls;
  ls.request = HttpRequest{server.url() + "/v1/completions",
                           build_completion_body(shape.request_kind, ApiKind::Completions, spec), {}};
  ls.concurrency = kStreams;
  ls.max_tokens = kMaxTokens;
  ls.duration_ns = static_cast<int64_t>(kWindowS * 1e9);
  ls.ramp_timeout_ns = 30 * kNsPerS;
  LoopOutcome out = loop.run(ls);
  ASSERT_TRUE(out.window_opened);
  ASSERT_FALSE(out.error.has_value());

  DecodeCell client, served;
  client.concurrency = served.concurrency = kStreams;
  compute_decode_metrics(out.records, out.window, -1, client);
  server.stop();
  compute_decode_metrics(test::to_request_records(server.records()), out.window, -1, served);

  EXPECT_TRUE(test::within_relative(*client.total_tok_s, *served.total_tok_s, 0.005))
      << *client.total_tok_s << " vs the server's " << *served.total_tok_s;
  EXPECT_TRUE(test::within_relative(static_cast<double>(*client.output_tokens),
                                    static_cast<double>(*served.output_tokens), 0.005))
      << *client.output_tokens << " vs " << *served.output_tokens;
  EXPECT_TRUE(test::within_relative(*client.per_request_tok_s, *served.per_request_tok_s, 0.005))
      << *client.per_request_tok_s << " vs " << *served.per_request_tok_s;
  EXPECT_NEAR(*client.tokens_per_chunk, shape.tokens_per_chunk, 0.01);
  EXPECT_EQ(client.token_count_source, shape.expected_source);
  EXPECT_GE(*client.completed, kStreams);
  // Every request asked for 60 and the server sent 60: none ended early, whatever the shape.
  EXPECT_EQ(*client.ended_early, 0);
  EXPECT_EQ(*client.requests_failed, 0);
  for (const auto& r : out.records) {
    if (r.end == RequestEnd::Finished) {
      EXPECT_EQ(r.tokens, kMaxTokens) << to_string(r.source);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, StreamShapes,
    ::testing::Values(
        // Final usage on the last chunk with text (not OpenAI's separate chunk): once counted twice.
        Shape{"UsageOnLastContentChunk", EngineKind::OpenAi, 1, usage_on_last_content_chunk, "chunks_scaled"},
        Shape{"UsageOnLastContentChunkThreePerChunk", EngineKind::OpenAi, 3, usage_on_last_content_chunk,
              "chunks_scaled"},
        // OpenAI's shape: usage only in a separate final chunk with no choices.
        Shape{"UsageInSeparateFinalChunk", EngineKind::OpenAi, 1, no_edit, "chunks_scaled"},
        // No usage at all: finish_reason "length" vouches for max_tokens.
        Shape{"NoUsage", EngineKind::OpenAi, 1, no_usage, "chunks_scaled"},
        Shape{"NoUsageThreePerChunk", EngineKind::OpenAi, 3, no_usage, "chunks_scaled"},
        // k tokens per chunk (speculative decoding, MTP) with only a final usage.
        Shape{"ThreePerChunkFinalUsage", EngineKind::OpenAi, 3, no_edit, "chunks_scaled"},
        // k tokens per chunk with continuous usage.
        Shape{"ThreePerChunkContinuousUsage", EngineKind::Vllm, 3, no_edit, "usage_continuous"},
        // llama.cpp: cumulative timings.predicted_n, usage on a separate finishing chunk.
        Shape{"LlamaCppTimings", EngineKind::LlamaCpp, 1, llamacpp, "timings"}),
    [](const ::testing::TestParamInfo<Shape>& info) { return info.param.name; });

// A cell is only as exact as its least exact stream: streams cut at the window's end never see
// their final usage, so the cell cannot say "usage_final" even though finished requests did.
TEST(StreamShapes, CellSourceIsTheWeakestAmongCountedRequests) {
  RequestRecord finished, cut;
  finished.send_ns = 0;
  finished.first_token_ns = 10;
  finished.chunks = {{10, 1}, {20, 1}};
  finished.tokens = 2;
  finished.end = RequestEnd::Finished;
  finished.end_ns = 20;
  finished.source = TokenSource::UsageFinal;
  cut = finished;
  cut.end = RequestEnd::Cut;
  cut.source = TokenSource::Chunks;
  DecodeCell cell;
  cell.concurrency = 2;
  std::vector<RequestRecord> records{finished, cut};
  compute_decode_metrics(records, DecodeWindow{0, 100}, -1, cell);
  EXPECT_EQ(cell.token_count_source, "chunks");
  // A request with no token inside the window does not weaken it.
  records[1].chunks = {{200, 1}};
  records[1].first_token_ns = 200;
  DecodeCell only_finished;
  compute_decode_metrics(records, DecodeWindow{0, 100}, -1, only_finished);
  EXPECT_EQ(only_finished.token_count_source, "usage_final");
}

}  // namespace
}  // namespace sm
