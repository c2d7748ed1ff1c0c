// Microbenchmarks of the per-chunk hot path: SSE decoding and chunk parsing (events/s, bytes/s).
//   build/bench/sse_chunk_bench
#include <benchmark/benchmark.h>

#include <string>

#include "engines/chunk_parser.h"
#include "net/sse_decoder.h"

namespace {

// A vLLM-like completions chunk with continuous usage: what the client parses per token.
const std::string kChunk =
    R"({"id":"cmpl-8d3a9f0c2b1e4f5a","object":"text_completion","created":1764600000,"model":"bench",)"
    R"("choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null,"stop_reason":null}],)"
    R"("usage":{"prompt_tokens":16384,"total_tokens":16512,"completion_tokens":128}})";

std::string stream_of(int events) {
  std::string s;
  for (int i = 0; i < events; ++i) s += "data: " + kChunk + "\n\n";
  return s;
}

void BM_SseDecode(benchmark::State& state) {
  const std::string input = stream_of(1000);
  const size_t read_size = static_cast<size_t>(state.range(0));
  size_t events = 0;
  for (auto _ : state) {
    sm::SseDecoder dec;
    for (size_t i = 0; i < input.size(); i += read_size)
      dec.feed(std::string_view(input).substr(i, read_size), [&](std::string_view d) {
        benchmark::DoNotOptimize(d.data());
        ++events;
      });
  }
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(input.size()));
}
BENCHMARK(BM_SseDecode)->Arg(64)->Arg(1500)->Arg(16384);

void BM_ChunkParse(benchmark::State& state) {
  sm::ChunkParser parser;
  sm::ChunkInfo info;
  for (auto _ : state) {
    parser.parse(kChunk, info);
    benchmark::DoNotOptimize(info.usage_completion_tokens);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kChunk.size()));
}
BENCHMARK(BM_ChunkParse);

void BM_DecodeAndParse(benchmark::State& state) {
  const std::string input = stream_of(1000);
  sm::ChunkParser parser;
  sm::ChunkInfo info;
  size_t events = 0;
  for (auto _ : state) {
    sm::SseDecoder dec;
    dec.feed(input, [&](std::string_view d) {
      parser.parse(d, info);
      ++events;
    });
  }
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(input.size()));
}
BENCHMARK(BM_DecodeAndParse);

}  // namespace
