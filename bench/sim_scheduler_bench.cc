// CPU cost of one simulated-engine step with N decoding streams: composing the batch, asking the
// cost model, advancing every stream and formatting its SSE chunk into a reused buffer (what the
// HTTP session does, minus the socket write). `sim_server_bench` measures the same over sockets.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "sim/batch_scheduler.h"
#include "sim/chunk_formatter.h"
#include "sim/linear_cost_model.h"

namespace {

using namespace sm::sim;

class FormattingSink final : public RequestSink {
 public:
  FormattingSink(const ChunkFormatter& f, uint64_t n) : formatter_(f) {
    request_.prompt_tokens = 1024;
    request_.text_seed = n;
    formatter_.make_head(request_, n, 1700000000, true);
    out_.reserve(1024);
  }
  void on_tokens(const TokenUpdate& u) override {
    out_.clear();  // stands for the socket write that drains the buffer every step
    formatter_.append_token_event(out_, request_, u.generated - 1, u.generated, u.finish, u.eos);
    bytes_ += 1;
  }
  int64_t bytes_ = 0;

 private:
  const ChunkFormatter& formatter_;
  StreamRequest request_;
  std::string out_;
};

void BM_SchedulerStep(benchmark::State& state) {
  const int streams = static_cast<int>(state.range(0));
  LinearCostModel cost(LinearCostParams{});
  SchedulerConfig c;
  c.kv_capacity_tokens = int64_t{streams} * 4096;
  c.max_num_seqs = streams;
  c.max_num_batched_tokens = streams * 64;
  BatchScheduler scheduler(c, cost);
  ChunkFormatter formatter("Qwen3.5-4B-AWQ-simulated");
  std::vector<std::unique_ptr<FormattingSink>> sinks;
  for (int i = 0; i < streams; ++i) {
    sinks.push_back(std::make_unique<FormattingSink>(formatter, static_cast<uint64_t>(i)));
    SimRequestSpec spec;
    spec.prompt_tokens = 32;
    spec.max_tokens = 4000;
    spec.ignore_eos = true;
    spec.prompt_block_hashes = {static_cast<uint64_t>(i) * 2 + 1, static_cast<uint64_t>(i) * 2 + 2};
    scheduler.add(std::move(spec), sinks.back().get());
  }
  for (int i = 0; i < 4; ++i) {  // admit and prefill everyone
    scheduler.begin_step();
    scheduler.finish_step();
  }
  for (auto _ : state) {
    auto dt = scheduler.begin_step();
    benchmark::DoNotOptimize(dt);
    scheduler.finish_step();
  }
  state.counters["streams"] = streams;
  state.counters["running"] = scheduler.stats().running;
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * streams,
                                                  benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SchedulerStep)->Arg(256)->Arg(1024)->Arg(4096)->Unit(benchmark::kMicrosecond)->Iterations(3000);

}  // namespace
