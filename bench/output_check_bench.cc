// The output checks' cost per chunk (metrics/output_check.h), beside the chunk parse every chunk
// already pays: varied text (the worst case: every repeat check scans its candidate periods),
// a loop (the cheap case: once found, the text is no longer kept), and the parse for scale. The
// checks run on their own thread (metrics/output_check_worker.h); what the measuring thread pays
// is BM_OutputBatchOnTheMeasuringThread: the text copied into the stream's batch and, each 16 KiB,
// the batch handed to the worker.
//   build/bench/output_check_bench
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "engines/chunk_parser.h"
#include "metrics/output_check_worker.h"

namespace {

// Token-sized pieces of varied English-like text (words from a fixed list, in a shuffled order).
std::vector<std::string> varied_tokens(size_t n) {
  static const char* const kWords[] = {" the", " model", " reads", " every", " token", " of", " a", " long",
                                       " prompt", " and", " writes", " its", " answer", " to", " stream", "."};
  std::vector<std::string> out;
  uint64_t x = 88172645463325252ULL;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out.emplace_back(kWords[x % 16]);
  }
  return out;
}

void BM_OutputCheckVariedText(benchmark::State& state) {
  const auto tokens = varied_tokens(4096);
  int64_t bytes = 0;
  for (auto _ : state) {
    sm::OutputCheck check;
    for (const auto& t : tokens) check.add("", t, 1);
    sm::OutputFlaw flaw;
    std::string excerpt;
    check.finish(static_cast<int64_t>(tokens.size()), flaw, excerpt);
    benchmark::DoNotOptimize(flaw);
  }
  for (const auto& t : tokens) bytes += static_cast<int64_t>(t.size());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * tokens.size()));  // chunks
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
}
BENCHMARK(BM_OutputCheckVariedText);

void BM_OutputCheckLoop(benchmark::State& state) {
  for (auto _ : state) {
    sm::OutputCheck check;
    for (int i = 0; i < 4096; ++i) check.add("", "]", 1);
    sm::OutputFlaw flaw;
    std::string excerpt;
    check.finish(4096, flaw, excerpt);
    benchmark::DoNotOptimize(flaw);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 4096);
}
BENCHMARK(BM_OutputCheckLoop);

// The measuring thread's part: each chunk's text copied into the batch; a full batch taken (here
// dropped; in a run, queued for the worker under one lock per 16 KiB).
void BM_OutputBatchOnTheMeasuringThread(benchmark::State& state) {
  const auto tokens = varied_tokens(4096);
  sm::OutputBatch batch;
  for (auto _ : state) {
    for (const auto& t : tokens) {
      batch.add("", t, 1);
      if (batch.full()) benchmark::DoNotOptimize(batch.take());
    }
    benchmark::DoNotOptimize(batch.take());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * tokens.size()));  // chunks
}
BENCHMARK(BM_OutputBatchOnTheMeasuringThread);

// For scale: what each chunk costs already (the same chunk as bench/sse_chunk_bench).
void BM_ChunkParseForScale(benchmark::State& state) {
  const std::string chunk =
      R"({"id":"cmpl-8d3a9f0c2b1e4f5a","object":"text_completion","created":1764600000,"model":"bench",)"
      R"("choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null,"stop_reason":null}],)"
      R"("usage":{"prompt_tokens":16384,"total_tokens":16512,"completion_tokens":128}})";
  sm::ChunkParser parser;
  sm::ChunkInfo info;
  for (auto _ : state) {
    parser.parse(chunk, info);
    benchmark::DoNotOptimize(info.text.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ChunkParseForScale);

}  // namespace
