#include "sim/batch_scheduler.h"

#include <gtest/gtest.h>

#include <numeric>

namespace sm::sim {
namespace {

// Fixed step time plus a cost per prefill token; remembers what it was asked.
class RecordingCost final : public StepCostModel {
 public:
  double step_time_s(const StepBatch& batch) const override {
    decodes.emplace_back(batch.decode_contexts.begin(), batch.decode_contexts.end());
    prefills.emplace_back(batch.prefill_chunks.begin(), batch.prefill_chunks.end());
    shared.push_back(batch.shared_prefix_tokens);
    return 0.001 + 1e-5 * static_cast<double>(batch.prefill_tokens);
  }
  std::string describe() const override { return "recording"; }
  mutable std::vector<std::vector<int64_t>> decodes;
  mutable std::vector<std::vector<PrefillChunk>> prefills;
  mutable std::vector<int64_t> shared;
};

// Drives the scheduler in virtual time and records when each request got its tokens.
struct Harness {
  explicit Harness(SchedulerConfig c) : scheduler(c, cost) {}

  struct Sink final : RequestSink {
    Harness* h = nullptr;
    std::vector<int64_t> token_steps;  // step number of each update
    std::vector<TokenUpdate> updates;
    void on_tokens(const TokenUpdate& u) override {
      token_steps.push_back(h->step);
      updates.push_back(u);
    }
    bool finished() const { return !updates.empty() && updates.back().finish != FinishKind::None; }
    int64_t first_step() const { return token_steps.empty() ? -1 : token_steps.front(); }
    int64_t last_step() const { return token_steps.empty() ? -1 : token_steps.back(); }
  };

  Sink& sink() {
    sinks.push_back(std::make_unique<Sink>());
    sinks.back()->h = this;
    return *sinks.back();
  }

  RequestId add(Sink& s, int64_t prompt, int64_t max_tokens, int32_t first_token = 0, std::string_view salt = {}) {
    SimRequestSpec spec;
    spec.prompt_tokens = prompt;
    spec.max_tokens = max_tokens;
    spec.ignore_eos = true;
    std::vector<int32_t> tokens(static_cast<size_t>(prompt));
    std::iota(tokens.begin(), tokens.end(), first_token);
    KvBlockPool::chain_hashes(tokens, 16, salt, spec.prompt_block_hashes);
    return scheduler.add(std::move(spec), &s);
  }

  // Runs one step; false when nothing could run.
  bool step_once() {
    auto dt = scheduler.begin_step();
    if (!dt) return false;
    ++step;
    now_s += *dt;
    max_waiting_seen = std::max(max_waiting_seen, scheduler.stats().waiting);
    scheduler.finish_step();
    return true;
  }

  void run_until_idle() {
    for (int guard = 0; scheduler.has_work() && guard < 100000; ++guard)
      if (!step_once()) break;
  }

  RecordingCost cost;
  BatchScheduler scheduler;
  std::vector<std::unique_ptr<Sink>> sinks;
  int64_t step = 0;
  double now_s = 0;
  int32_t max_waiting_seen = 0;
};

SchedulerConfig config(int64_t capacity_tokens = 16 * 1024, int32_t budget = 2048, int32_t max_seqs = 256) {
  SchedulerConfig c;
  c.kv_capacity_tokens = capacity_tokens;
  c.block_size = 16;
  c.max_num_seqs = max_seqs;
  c.max_num_batched_tokens = budget;
  return c;
}

TEST(BatchScheduler, OneRequestPrefillsThenDecodesOneTokenPerStep) {
  Harness h(config());
  auto& s = h.sink();
  h.add(s, 10, 5);
  h.run_until_idle();
  ASSERT_TRUE(s.finished());
  EXPECT_EQ(s.updates.back().finish, FinishKind::Length);
  EXPECT_EQ(s.token_steps, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(s.updates.back().generated, 5);
  // Step 1 prefills the prompt and samples token 1; step k>1 decodes with context 10 + k - 1.
  ASSERT_EQ(h.cost.prefills.size(), 5u);
  EXPECT_EQ(h.cost.prefills[0].size(), 1u);
  EXPECT_EQ(h.cost.prefills[0][0].tokens, 10);
  EXPECT_EQ(h.cost.decodes[1], (std::vector<int64_t>{11}));
  EXPECT_EQ(h.cost.decodes[4], (std::vector<int64_t>{14}));
  EXPECT_NEAR(h.now_s, 5 * 0.001 + 10 * 1e-5, 1e-12);
  SchedulerStats st = h.scheduler.stats();
  EXPECT_EQ(st.generation_tokens, 5);
  EXPECT_EQ(st.prompt_tokens, 10);
  EXPECT_EQ(st.prefill_tokens_computed, 10);
  EXPECT_EQ(st.requests_finished_length, 1);
  EXPECT_EQ(st.free_blocks, st.num_blocks);
  EXPECT_NEAR(st.busy_s, h.now_s, 1e-12);
}

TEST(BatchScheduler, LongPromptsPrefillInChunksUnderTheTokenBudget) {
  Harness h(config(16 * 1024, 8));
  auto& s = h.sink();
  h.add(s, 20, 2);
  h.run_until_idle();
  EXPECT_EQ(s.first_step(), 3) << "8 + 8 + 4 prompt tokens, then the first token";
  ASSERT_GE(h.cost.prefills.size(), 3u);
  EXPECT_EQ(h.cost.prefills[0][0].start_position, 0);
  EXPECT_EQ(h.cost.prefills[1][0].start_position, 8);
  EXPECT_EQ(h.cost.prefills[2][0].start_position, 16);
  EXPECT_EQ(h.cost.prefills[2][0].tokens, 4);
  // Only the chunk that ends the prompt samples (the cost model charges its LM head).
  EXPECT_FALSE(h.cost.prefills[0][0].samples);
  EXPECT_FALSE(h.cost.prefills[1][0].samples);
  EXPECT_TRUE(h.cost.prefills[2][0].samples);
}

TEST(BatchScheduler, NewRequestsJoinTheRunningBatchAtTheNextStep) {
  Harness h(config());
  auto& a = h.sink();
  auto& b = h.sink();
  h.add(a, 10, 10);
  h.step_once();
  h.step_once();
  h.add(b, 10, 3);
  h.run_until_idle();
  EXPECT_EQ(a.token_steps.size(), 10u);
  // A keeps one token per step while B prefills in the same steps (continuous batching).
  for (size_t i = 1; i < a.token_steps.size(); ++i) EXPECT_EQ(a.token_steps[i], a.token_steps[i - 1] + 1);
  EXPECT_EQ(b.first_step(), 3);
  EXPECT_EQ(h.cost.decodes[2], (std::vector<int64_t>{12}));
  EXPECT_EQ(h.cost.prefills[2][0].tokens, 10);
  EXPECT_EQ(h.cost.decodes[3], (std::vector<int64_t>{13, 11}));
}

TEST(BatchScheduler, RequestsThatDoNotFitTheKvPoolWaitInOrder) {
  // 16 blocks of 16 tokens. Each request: 100 prompt + 20 output = 8 blocks, 7 at admission.
  Harness h(config(256));
  std::vector<Harness::Sink*> s;
  for (int i = 0; i < 4; ++i) {
    s.push_back(&h.sink());
    h.add(*s.back(), 100, 20, 1000 * i);  // distinct prompts: nothing shared
  }
  h.step_once();
  SchedulerStats st = h.scheduler.stats();
  EXPECT_EQ(st.running, 2);
  EXPECT_EQ(st.waiting, 2);
  h.run_until_idle();
  st = h.scheduler.stats();
  EXPECT_EQ(st.max_running, 2);
  EXPECT_EQ(st.preemptions, 0);
  EXPECT_EQ(st.generation_tokens, 80);
  for (auto* sink : s) EXPECT_TRUE(sink->finished());
  // FCFS: the third and fourth start only after the first two are done.
  EXPECT_GT(s[2]->first_step(), s[0]->last_step());
  EXPECT_GT(s[3]->first_step(), s[1]->last_step());
}

TEST(BatchScheduler, MaxNumSeqsCapsTheRunningBatch) {
  Harness h(config(16 * 1024, 2048, 2));
  for (int i = 0; i < 5; ++i) h.add(h.sink(), 10, 4, 100 * i);
  h.run_until_idle();
  EXPECT_EQ(h.scheduler.stats().max_running, 2);
  EXPECT_EQ(h.scheduler.stats().generation_tokens, 20);
  EXPECT_GE(h.max_waiting_seen, 3);
}

TEST(BatchScheduler, RepeatedPromptHitsThePrefixCache) {
  Harness h(config());
  auto& a = h.sink();
  h.add(a, 200, 2);
  h.run_until_idle();
  auto& b = h.sink();
  h.add(b, 200, 2);
  h.run_until_idle();
  SchedulerStats st = h.scheduler.stats();
  EXPECT_EQ(st.prefix_cache_queries, 400);
  EXPECT_EQ(st.prefix_cache_hits, 192) << "12 full blocks; the last token is always recomputed";
  EXPECT_EQ(st.prefill_tokens_computed, 200 + 8);
  EXPECT_EQ(b.updates.back().cached_prompt_tokens, 192);
  EXPECT_EQ(a.updates.back().cached_prompt_tokens, 0);
}

TEST(BatchScheduler, AFullyCachedBlockAlignedPromptStillComputesItsLastBlock) {
  Harness h(config());
  h.add(h.sink(), 64, 1);
  h.run_until_idle();
  auto& b = h.sink();
  h.add(b, 64, 1);
  h.run_until_idle();
  EXPECT_EQ(b.updates.back().cached_prompt_tokens, 48);
}

TEST(BatchScheduler, CacheSaltKeepsRequestsApart) {
  Harness h(config());
  h.add(h.sink(), 200, 2, 0, "run-1");
  h.run_until_idle();
  h.add(h.sink(), 200, 2, 0, "run-2");
  h.run_until_idle();
  EXPECT_EQ(h.scheduler.stats().prefix_cache_hits, 0);
  h.add(h.sink(), 200, 2, 0, "run-2");
  h.run_until_idle();
  EXPECT_EQ(h.scheduler.stats().prefix_cache_hits, 192);
}

TEST(BatchScheduler, StreamsWithTheSameContextShareItsBlocks) {
  Harness h(config(64 * 16));  // 64 blocks
  h.add(h.sink(), 480, 1);     // warm-up: 30 blocks cached
  h.run_until_idle();
  for (int i = 0; i < 4; ++i) h.add(h.sink(), 480, 16);
  h.step_once();
  SchedulerStats st = h.scheduler.stats();
  EXPECT_EQ(st.running, 4) << "4 x 31 blocks would not fit without sharing";
  EXPECT_EQ(st.num_blocks - st.free_blocks, 29 + 4) << "29 shared blocks, and each recomputes its last one";
  EXPECT_EQ(h.cost.shared.back(), 0) << "no stream decodes yet";
  h.step_once();
  EXPECT_EQ(h.cost.decodes.back().size(), 4u);
  EXPECT_EQ(h.cost.shared.back(), 29 * 16) << "the cost model hears how much KV the streams share";
  h.run_until_idle();
  EXPECT_EQ(h.scheduler.stats().preemptions, 0);
}

TEST(BatchScheduler, StreamsWithDifferentPromptsShareNothing) {
  Harness h(config());
  h.add(h.sink(), 64, 4, 0);
  h.add(h.sink(), 64, 4, 1000);
  h.run_until_idle();
  for (int64_t shared : h.cost.shared) EXPECT_EQ(shared, 0);
}

TEST(BatchScheduler, HeldRequestsWaitForRelease) {
  Harness h(config());
  auto& a = h.sink();
  SimRequestSpec spec;
  spec.prompt_tokens = 8;
  spec.max_tokens = 2;
  spec.ignore_eos = true;
  RequestId id = h.scheduler.add(spec, &a, /*held=*/true);
  EXPECT_FALSE(h.scheduler.has_work());
  EXPECT_FALSE(h.scheduler.begin_step().has_value());
  h.scheduler.release(id);
  EXPECT_TRUE(h.scheduler.has_work());
  h.run_until_idle();
  EXPECT_TRUE(a.finished());
  RequestId dropped = h.scheduler.add(spec, &h.sink(), true);
  h.scheduler.abort(dropped);
  h.scheduler.release(dropped);
  EXPECT_FALSE(h.scheduler.has_work());
  EXPECT_EQ(h.scheduler.stats().free_blocks, h.scheduler.stats().num_blocks);
}

TEST(BatchScheduler, PreemptsTheNewestRequestWhenTheRunningOnesOutgrowThePool) {
  // 6 blocks; two requests of 16 prompt + 40 output = 4 blocks each at the end.
  Harness h(config(96));
  auto& a = h.sink();
  auto& b = h.sink();
  h.add(a, 16, 40, 0);
  h.add(b, 16, 40, 500);
  h.run_until_idle();
  SchedulerStats st = h.scheduler.stats();
  EXPECT_GE(st.preemptions, 1);
  ASSERT_TRUE(a.finished());
  ASSERT_TRUE(b.finished());
  EXPECT_EQ(a.updates.size(), 40u);
  EXPECT_EQ(b.updates.size(), 40u) << "recompute resumes where the output was, without repeating tokens";
  for (size_t i = 0; i < b.updates.size(); ++i) EXPECT_EQ(b.updates[i].generated, static_cast<int64_t>(i + 1));
  EXPECT_LT(a.last_step(), b.last_step()) << "the older request keeps its place";
  EXPECT_GT(st.prefill_tokens_computed, 32) << "the preempted request recomputed its KV";
  EXPECT_EQ(st.free_blocks, st.num_blocks);
}

TEST(BatchScheduler, EosEndsARequestUnlessIgnoredButNotBeforeMinTokens) {
  Harness h(config());
  auto run = [&](bool ignore_eos, int64_t min_tokens) {
    auto& s = h.sink();
    SimRequestSpec spec;
    spec.prompt_tokens = 8;
    spec.max_tokens = 20;
    spec.min_tokens = min_tokens;
    spec.ignore_eos = ignore_eos;
    spec.natural_length = 5;
    h.scheduler.add(std::move(spec), &s);
    h.run_until_idle();
    return s.updates.back();
  };
  TokenUpdate u = run(false, 0);
  EXPECT_EQ(u.finish, FinishKind::Stop);
  EXPECT_TRUE(u.eos);
  EXPECT_EQ(u.generated, 5);
  u = run(false, 8);
  EXPECT_EQ(u.finish, FinishKind::Stop);
  EXPECT_EQ(u.generated, 9);
  u = run(true, 0);
  EXPECT_EQ(u.finish, FinishKind::Length);
  EXPECT_FALSE(u.eos);
  EXPECT_EQ(u.generated, 20);
  EXPECT_EQ(h.scheduler.stats().requests_finished_stop, 2);
}

TEST(BatchScheduler, AbortedRequestsStopAndFreeTheirBlocks) {
  Harness h(config());
  auto& a = h.sink();
  auto& b = h.sink();
  auto& c = h.sink();
  RequestId ia = h.add(a, 40, 100, 0);
  h.add(b, 40, 10, 100);
  h.step_once();
  h.step_once();
  h.scheduler.abort(ia);
  RequestId ic = h.add(c, 40, 10, 200);
  h.scheduler.abort(ic);  // still waiting
  h.run_until_idle();
  EXPECT_EQ(a.updates.size(), 2u);
  EXPECT_TRUE(c.updates.empty());
  EXPECT_TRUE(b.finished());
  SchedulerStats st = h.scheduler.stats();
  EXPECT_EQ(st.requests_aborted, 2);
  EXPECT_EQ(st.running + st.waiting, 0);
  EXPECT_EQ(st.free_blocks, st.num_blocks);
  h.scheduler.abort(ia);  // stale id: ignored
  EXPECT_EQ(h.scheduler.stats().requests_aborted, 2);
}

}  // namespace
}  // namespace sm::sim

namespace sm::sim {
namespace {

// Speculative decoding: every draft accepted, a decode step yields 1 + 3 tokens, never past
// max_tokens; the counters count drafts, draft tokens and accepted ones.
TEST(BatchSchedulerSpeculation, EachDecodeStepYieldsItsAcceptedDrafts) {
  SchedulerConfig c = config();
  c.spec_tokens = 3;
  c.spec_accept_rate = 1.0;
  Harness h(c);
  auto& s = h.sink();
  h.add(s, 10, 10);
  h.run_until_idle();
  ASSERT_TRUE(s.finished());
  // Step 1 prefills and samples token 1; then 1 + 3, 1 + 3, and the last one alone.
  std::vector<int32_t> per_step;
  for (const auto& u : s.updates) per_step.push_back(u.new_tokens);
  EXPECT_EQ(per_step, (std::vector<int32_t>{1, 4, 4, 1}));
  EXPECT_EQ(s.updates.back().generated, 10);
  EXPECT_EQ(s.updates.back().finish, FinishKind::Length);
  const SchedulerStats st = h.scheduler.stats();
  EXPECT_EQ(st.spec_drafts, 2);  // the last step had no room for a draft
  EXPECT_EQ(st.spec_draft_tokens, 6);
  EXPECT_EQ(st.spec_accepted_tokens, 6);
  EXPECT_EQ(st.generation_tokens, 10);
  EXPECT_EQ(st.free_blocks, st.num_blocks);  // every block back
}

TEST(BatchSchedulerSpeculation, AcceptanceFollowsTheRateAndEndsAtEndOfSequence) {
  SchedulerConfig c = config();
  c.spec_tokens = 4;
  c.spec_accept_rate = 0.5;
  Harness h(c);
  for (int i = 0; i < 20; ++i) h.add(h.sink(), 32, 200, i * 1000);
  h.run_until_idle();
  const SchedulerStats st = h.scheduler.stats();
  ASSERT_GT(st.spec_draft_tokens, 1000);
  // Each draft token is accepted with 1/2 until the first rejection: 1/2 + 1/4 + 1/8 + 1/16
  // = 0.94 accepted per draft of 4, 23% of its tokens.
  const double per_draft = static_cast<double>(st.spec_accepted_tokens) / static_cast<double>(st.spec_drafts);
  EXPECT_NEAR(per_draft, 0.9375, 0.1);
  EXPECT_EQ(st.generation_tokens, 20 * 200);
  // Without ignore_eos, an answer ends at its EOS even when drafts were accepted past it.
  SchedulerConfig all = config();
  all.spec_tokens = 4;
  all.spec_accept_rate = 1.0;
  Harness e(all);
  auto& s = e.sink();
  SimRequestSpec spec;
  spec.prompt_tokens = 16;
  spec.max_tokens = 100;
  spec.natural_length = 7;
  e.scheduler.add(std::move(spec), &s);
  e.run_until_idle();
  ASSERT_TRUE(s.finished());
  EXPECT_EQ(s.updates.back().generated, 7);
  EXPECT_EQ(s.updates.back().finish, FinishKind::Stop);
}

}  // namespace
}  // namespace sm::sim
