#include "sim/batch_scheduler.h"

#include <algorithm>

#include "core/error.h"

namespace sm::sim {

struct BatchScheduler::Request {
  SimRequestSpec spec;
  RequestSink* sink = nullptr;     ///< null once aborted
  uint32_t slot = 0;               ///< index in slots_
  uint32_t generation = 0;         ///< bumped on reuse, so stale ids miss
  bool active = false;             ///< added and not yet retired
  bool held = false;               ///< added, not yet released into the waiting queue
  bool running = false;            ///< in running_ (else in waiting_)
  bool aborted = false;
  bool admitted_once = false;      ///< prefix hit already recorded in cached_prompt_tokens
  int64_t generated = 0;           ///< output tokens sampled so far
  int64_t computed = 0;            ///< tokens whose KV is in the pool (vLLM num_computed_tokens)
  int64_t scheduled = 0;           ///< tokens computed by the step in flight
  int32_t drafts = 0;              ///< draft tokens the step in flight verifies (speculative decoding)
  int64_t eos_at = 0;              ///< output token number that is EOS; 0 = never
  int64_t cached_prompt_tokens = 0;  ///< prefix-cache hit at first admission
  int32_t hashed_blocks = 0;       ///< leading blocks of `blocks` registered in the prefix cache
  std::vector<int32_t> blocks;     ///< block table

  /// Every token the request has: prompt plus generated output.
  int64_t num_tokens() const { return spec.prompt_tokens + generated; }
  RequestId id() const { return (static_cast<uint64_t>(generation) << 32) | slot; }
};

namespace {

int64_t blocks_for(int64_t tokens, int32_t block_size) { return (tokens + block_size - 1) / block_size; }

// A uniform draw in [0, 1) fixed by the request, its output so far and the draft's place, so a
// run accepts the same drafts every time (splitmix64).
double draft_draw(uint64_t id, int64_t generated, int32_t draft) {
  uint64_t x = id * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(generated) * 0xd1b54a32d192ed03ull +
               static_cast<uint64_t>(draft) + 1;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) / static_cast<double>(1ull << 53);
}

}  // namespace

BatchScheduler::BatchScheduler(const SchedulerConfig& config, const StepCostModel& cost)
    : config_(config),
      cost_(cost),
      pool_(static_cast<int32_t>(config.kv_capacity_tokens / config.block_size), config.block_size,
            config.enable_prefix_caching) {
  SM_CHECK(config.max_num_seqs > 0 && config.max_num_batched_tokens > 0, "scheduler limits must be positive");
  running_.reserve(static_cast<size_t>(config.max_num_seqs));
  scheduled_.reserve(static_cast<size_t>(config.max_num_seqs));
  decode_contexts_.reserve(static_cast<size_t>(config.max_num_seqs));
}

BatchScheduler::~BatchScheduler() = default;

RequestId BatchScheduler::add(SimRequestSpec spec, RequestSink* sink, bool held) {
  SM_CHECK(spec.prompt_tokens > 0 && spec.max_tokens > 0, "request needs a prompt and an output");
  SM_CHECK(blocks_for(spec.prompt_tokens + spec.max_tokens, config_.block_size) <= pool_.num_blocks(),
           "request larger than the KV pool");
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(std::make_unique<Request>());
    slots_.back()->slot = slot;
  }
  Request& r = *slots_[slot];
  r.spec = std::move(spec);
  r.sink = sink;
  r.active = true;
  r.held = held;
  r.running = false;
  r.aborted = false;
  r.admitted_once = false;
  r.generated = r.computed = r.scheduled = 0;
  r.cached_prompt_tokens = 0;
  r.hashed_blocks = 0;
  r.blocks.clear();
  r.blocks.reserve(static_cast<size_t>(blocks_for(r.spec.prompt_tokens + r.spec.max_tokens, config_.block_size)));
  // EOS is masked until min_tokens outputs exist (vLLM's min_tokens), so it can come no earlier.
  r.eos_at = 0;
  if (!r.spec.ignore_eos && r.spec.natural_length > 0)
    r.eos_at = std::max(r.spec.natural_length, r.spec.min_tokens + 1);
  if (!held) waiting_.push_back(&r);
  ++stats_.requests_added;
  return r.id();
}

void BatchScheduler::release(RequestId id) {
  Request* r = lookup(id);
  if (r == nullptr || !r->held) return;
  r->held = false;
  waiting_.push_back(r);
}

BatchScheduler::Request* BatchScheduler::lookup(RequestId id) const {
  uint32_t slot = static_cast<uint32_t>(id & 0xffffffffu);
  if (slot >= slots_.size()) return nullptr;
  Request* r = slots_[slot].get();
  if (!r->active || r->generation != static_cast<uint32_t>(id >> 32)) return nullptr;
  return r;
}

void BatchScheduler::abort(RequestId id) {
  Request* r = lookup(id);
  if (r == nullptr || r->aborted) return;
  r->aborted = true;
  r->sink = nullptr;
  ++stats_.requests_aborted;
  if (r->held) {
    retire(*r);
  } else if (!r->running) {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), r));
    retire(*r);
  } else {
    has_aborted_running_ = true;  // part of the step in flight: purged when it completes
    if (!in_flight_) purge_aborted();
  }
}

void BatchScheduler::abort_all() {
  for (auto& slot : slots_)
    if (slot->active) abort(slot->id());
  if (!in_flight_) purge_aborted();
}

void BatchScheduler::retire(Request& r) {
  pool_.release(r.blocks);
  r.blocks.clear();
  r.active = false;
  r.held = false;
  r.running = false;
  r.sink = nullptr;
  ++r.generation;
  r.spec.prompt_block_hashes.clear();
  free_slots_.push_back(r.slot);
}

void BatchScheduler::purge_aborted() {
  if (!has_aborted_running_) return;
  has_aborted_running_ = false;
  std::erase_if(running_, [this](Request* r) {
    if (!r->aborted) return false;
    retire(*r);
    return true;
  });
}

void BatchScheduler::preempt(Request& r) {
  // vLLM's recompute preemption: drop the KV, keep the output so far, requeue at the front.
  pool_.release(r.blocks);
  r.blocks.clear();
  r.computed = 0;
  r.hashed_blocks = 0;
  r.running = false;
  waiting_.push_front(&r);
  ++stats_.preemptions;
}

void BatchScheduler::schedule_tokens(Request& r, int64_t num_new) {
  const int32_t bs = config_.block_size;
  r.scheduled = num_new;
  // vLLM caches a full block when the step that computes it is scheduled.
  const int32_t full_after = static_cast<int32_t>(
      std::min<int64_t>((r.computed + num_new) / bs, static_cast<int64_t>(r.spec.prompt_block_hashes.size())));
  for (int32_t b = r.hashed_blocks; b < full_after; ++b) pool_.cache_block(r.blocks[b], r.spec.prompt_block_hashes[b]);
  r.hashed_blocks = std::max(r.hashed_blocks, full_after);
  if (r.computed >= r.spec.prompt_tokens && num_new == 1) {
    decode_contexts_.push_back(r.computed + 1);
    decode_requests_.push_back(&r);
  } else {
    prefill_chunks_.push_back(PrefillChunk{r.computed, num_new, r.computed + num_new >= r.spec.prompt_tokens});
    prefill_total_ += num_new;
  }
  scheduled_.push_back(&r);
}

std::optional<double> BatchScheduler::begin_step() {
  SM_CHECK(!in_flight_, "begin_step while a step is in flight");
  purge_aborted();
  scheduled_.clear();
  decode_contexts_.clear();
  decode_requests_.clear();
  prefill_chunks_.clear();
  prefill_total_ = 0;
  const int32_t bs = config_.block_size;
  int64_t budget = config_.max_num_batched_tokens;
  bool preempted_any = false;

  // 1. Running requests, highest priority first.
  for (size_t i = 0; i < running_.size() && budget > 0; ++i) {
    Request& r = *running_[i];
    int64_t num_new = std::min(r.num_tokens() - r.computed, budget);
    if (num_new <= 0) continue;
    // A decode step also verifies drafts, each a token of KV and of the budget, never more than
    // the request may still produce after this step's own token.
    int32_t drafts = 0;
    if (config_.spec_tokens > 0 && num_new == 1 && r.computed >= r.spec.prompt_tokens)
      drafts = static_cast<int32_t>(std::max<int64_t>(
          0, std::min<int64_t>({config_.spec_tokens, r.spec.max_tokens - r.generated - 1, budget - 1})));
    int64_t need = blocks_for(r.computed + num_new + drafts, bs) - static_cast<int64_t>(r.blocks.size());
    bool self_preempted = false;
    while (need > pool_.num_free()) {
      Request* victim = running_.back();
      running_.pop_back();
      preempt(*victim);
      preempted_any = true;
      if (victim == &r) {
        self_preempted = true;
        break;
      }
    }
    if (self_preempted) break;
    if (need > 0) pool_.allocate(static_cast<int32_t>(need), r.blocks);
    budget -= num_new + drafts;
    r.drafts = drafts;
    schedule_tokens(r, num_new);
  }

  // 2. Waiting requests, FCFS, unless this step had to preempt (as vLLM).
  while (!preempted_any && !waiting_.empty() && budget > 0 &&
         running_.size() < static_cast<size_t>(config_.max_num_seqs)) {
    Request& r = *waiting_.front();
    const int64_t num_tokens = r.num_tokens();
    // When everything is cached the last token is still computed, to get its logits.
    const int32_t max_hit = static_cast<int32_t>((num_tokens - 1) / bs);
    PrefixMatch m = pool_.match_prefix(r.spec.prompt_block_hashes, max_hit);
    // The whole prompt's blocks are reserved at admission, so a long prompt prefilling in chunks
    // never has to preempt the requests admitted after it.
    int64_t need_new = blocks_for(num_tokens, bs) - m.blocks;
    if (need_new > pool_.num_free() - m.unreferenced) break;  // head of line waits for room
    waiting_.pop_front();
    pool_.acquire_cached(r.spec.prompt_block_hashes, m.blocks, r.blocks);
    pool_.allocate(static_cast<int32_t>(need_new), r.blocks);
    r.hashed_blocks = m.blocks;
    r.computed = static_cast<int64_t>(m.blocks) * bs;
    stats_.prefix_cache_queries += num_tokens;
    stats_.prefix_cache_hits += r.computed;
    if (!r.admitted_once) {
      r.admitted_once = true;
      r.cached_prompt_tokens = r.computed;
    }
    r.running = true;
    running_.push_back(&r);
    int64_t num_new = std::min(num_tokens - r.computed, budget);
    budget -= num_new;
    r.drafts = 0;
    schedule_tokens(r, num_new);
  }

  stats_.max_running = std::max(stats_.max_running, static_cast<int32_t>(running_.size()));
  stats_.max_waiting = std::max(stats_.max_waiting, static_cast<int32_t>(waiting_.size()));
  if (scheduled_.empty()) return std::nullopt;
  in_flight_ = true;
  shared_prefix_tokens_ = shared_prefix_tokens();
  last_step_s_ = cost_.step_time_s(StepBatch{decode_contexts_, prefill_chunks_, prefill_total_, shared_prefix_tokens_});
  return last_step_s_;
}

int64_t BatchScheduler::shared_prefix_tokens() {
  const size_t n = decode_requests_.size();
  if (n < 2) {
    shared_prefix_set_ = 0;
    return 0;
  }
  // A running request's block table only grows at its end, with blocks of its own, so the common
  // prefix of an unchanged set of streams stays the same: recompute only when the set changes.
  uint64_t signature = n;
  for (const Request* r : decode_requests_) {
    uint64_t x = r->id() + 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
    signature += x ^ (x >> 29);
  }
  if (signature == shared_prefix_set_) return shared_prefix_tokens_;
  shared_prefix_set_ = signature;
  const std::vector<int32_t>& ref = decode_requests_[0]->blocks;
  size_t common = ref.size();
  for (size_t i = 1; i < n && common > 0; ++i) {
    const std::vector<int32_t>& other = decode_requests_[i]->blocks;
    common = std::min(common, other.size());
    common = static_cast<size_t>(std::mismatch(ref.begin(), ref.begin() + static_cast<ptrdiff_t>(common), other.begin()).first -
                                 ref.begin());
  }
  // Shared blocks are full (only full blocks are cached), so this never exceeds a context.
  return static_cast<int64_t>(common) * config_.block_size;
}

void BatchScheduler::finish_step() {
  SM_CHECK(in_flight_, "finish_step without begin_step");
  in_flight_ = false;
  ++stats_.steps;
  stats_.busy_s += last_step_s_;
  stats_.prefill_tokens_computed += prefill_total_;
  bool any_finished = false;
  for (Request* rp : scheduled_) {
    Request& r = *rp;
    if (r.aborted) continue;
    r.computed += r.scheduled;
    r.scheduled = 0;
    if (r.computed < r.num_tokens()) continue;  // a prefill chunk that did not reach the end
    int64_t accepted = 0;
    if (r.drafts > 0) {
      ++stats_.spec_drafts;
      stats_.spec_draft_tokens += r.drafts;
      while (accepted < r.drafts && draft_draw(r.id(), r.generated, static_cast<int32_t>(accepted)) < config_.spec_accept_rate)
        ++accepted;
      stats_.spec_accepted_tokens += accepted;
      if (r.eos_at > 0) accepted = std::clamp<int64_t>(r.eos_at - r.generated - 1, 0, accepted);  // nothing after EOS
      r.computed += accepted;  // the accepted drafts' KV was computed by this step
      r.drafts = 0;
    }
    r.generated += 1 + accepted;
    stats_.generation_tokens += 1 + accepted;
    if (r.generated == 1) stats_.prompt_tokens += r.spec.prompt_tokens;
    TokenUpdate u;
    u.generated = r.generated;
    u.new_tokens = static_cast<int32_t>(1 + accepted);
    u.cached_prompt_tokens = r.cached_prompt_tokens;
    if (r.eos_at > 0 && r.generated == r.eos_at) {
      u.eos = true;
      u.finish = FinishKind::Stop;
      ++stats_.requests_finished_stop;
    } else if (r.generated >= r.spec.max_tokens) {
      u.finish = FinishKind::Length;
      ++stats_.requests_finished_length;
    }
    if (r.sink != nullptr) r.sink->on_tokens(u);
    if (u.finish != FinishKind::None) {
      r.aborted = true;  // reuse the purge path; it is not counted as an abort
      any_finished = true;
    }
  }
  if (any_finished || has_aborted_running_) {
    has_aborted_running_ = true;
    purge_aborted();
  }
}

SchedulerStats BatchScheduler::stats() const {
  SchedulerStats s = stats_;
  s.running = static_cast<int32_t>(running_.size());
  s.waiting = static_cast<int32_t>(waiting_.size());
  s.num_blocks = pool_.num_blocks();
  s.free_blocks = pool_.num_free();
  s.kv_usage = pool_.usage();
  return s;
}

}  // namespace sm::sim
