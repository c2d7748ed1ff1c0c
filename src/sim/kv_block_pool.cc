#include "sim/kv_block_pool.h"

#include "core/error.h"
#include "core/rng.h"

namespace sm::sim {

KvBlockPool::KvBlockPool(int32_t num_blocks, int32_t block_size, bool enable_prefix_caching)
    : block_size_(block_size), prefix_caching_(enable_prefix_caching) {
  SM_CHECK(num_blocks > 0 && block_size > 0, "KV pool needs blocks");
  ref_count_.assign(static_cast<size_t>(num_blocks), 0);
  hash_.assign(static_cast<size_t>(num_blocks), 0);
  has_hash_.assign(static_cast<size_t>(num_blocks), 0);
  prev_.assign(static_cast<size_t>(num_blocks), -1);
  next_.assign(static_cast<size_t>(num_blocks), -1);
  for (int32_t b = 0; b < num_blocks; ++b) push_free_tail(b);
  if (prefix_caching_) cached_.reserve(static_cast<size_t>(num_blocks));
}

void KvBlockPool::push_free_tail(int32_t block) {
  prev_[block] = tail_;
  next_[block] = -1;
  if (tail_ >= 0) next_[tail_] = block;
  else head_ = block;
  tail_ = block;
  ++num_free_;
}

void KvBlockPool::unlink_free(int32_t block) {
  if (prev_[block] >= 0) next_[prev_[block]] = next_[block];
  else head_ = next_[block];
  if (next_[block] >= 0) prev_[next_[block]] = prev_[block];
  else tail_ = prev_[block];
  prev_[block] = next_[block] = -1;
  --num_free_;
}

PrefixMatch KvBlockPool::match_prefix(std::span<const uint64_t> hashes, int32_t max_blocks) const {
  PrefixMatch m;
  if (!prefix_caching_) return m;
  const int32_t n = std::min<int32_t>(max_blocks, static_cast<int32_t>(hashes.size()));
  for (int32_t i = 0; i < n; ++i) {
    auto it = cached_.find(hashes[i]);
    if (it == cached_.end()) break;
    ++m.blocks;
    if (ref_count_[it->second] == 0) ++m.unreferenced;
  }
  return m;
}

void KvBlockPool::acquire_cached(std::span<const uint64_t> hashes, int32_t n, std::vector<int32_t>& table) {
  for (int32_t i = 0; i < n; ++i) {
    auto it = cached_.find(hashes[i]);
    SM_CHECK(it != cached_.end(), "acquire_cached beyond the matched prefix");
    int32_t b = it->second;
    if (ref_count_[b]++ == 0) unlink_free(b);
    table.push_back(b);
  }
}

void KvBlockPool::allocate(int32_t n, std::vector<int32_t>& table) {
  SM_CHECK(n <= num_free_, "KV pool over-allocated");
  for (int32_t i = 0; i < n; ++i) {
    int32_t b = head_;
    unlink_free(b);
    if (has_hash_[b]) {  // evict: the block is reused for new tokens
      auto it = cached_.find(hash_[b]);
      if (it != cached_.end() && it->second == b) cached_.erase(it);
      has_hash_[b] = 0;
    }
    ref_count_[b] = 1;
    table.push_back(b);
  }
}

void KvBlockPool::cache_block(int32_t block, uint64_t hash) {
  if (!prefix_caching_ || has_hash_[block]) return;
  if (!cached_.try_emplace(hash, block).second) return;
  hash_[block] = hash;
  has_hash_[block] = 1;
}

void KvBlockPool::release(std::span<const int32_t> table) {
  for (auto it = table.rbegin(); it != table.rend(); ++it) {
    int32_t b = *it;
    SM_CHECK(ref_count_[b] > 0, "KV block released twice");
    if (--ref_count_[b] == 0) push_free_tail(b);
  }
}

void KvBlockPool::chain_hashes(std::span<const int32_t> tokens, int32_t block_size, std::string_view salt,
                               std::vector<uint64_t>& out) {
  uint64_t parent = 0x5eed5eed5eed5eedull;
  if (!salt.empty()) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a of the salt
    for (unsigned char c : salt) h = (h ^ c) * 1099511628211ull;
    parent = mix64(parent ^ h);
  }
  const size_t full = tokens.size() / static_cast<size_t>(block_size);
  for (size_t b = 0; b < full; ++b) {
    uint64_t h = mix64(parent + 0x9e3779b97f4a7c15ull);
    const int32_t* t = tokens.data() + b * static_cast<size_t>(block_size);
    for (int32_t i = 0; i < block_size; ++i) h = mix64(h ^ static_cast<uint32_t>(t[i]));
    out.push_back(h);
    parent = h;
  }
}

}  // namespace sm::sim
