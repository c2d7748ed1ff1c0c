#pragma once
// The paged KV-cache pool of the simulated engine, with vLLM's automatic prefix caching:
// fixed-size blocks, a block table per request, full prompt blocks identified by chained hashes
// (a block's hash covers its tokens and every token before it, plus an optional salt), shared by
// reference count, and unreferenced cached blocks kept until a new allocation evicts them, least
// recently freed first (vLLM's FreeKVCacheBlockQueue). It only keeps counts and ids: no tensors.
#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sm::sim {

/// What match_prefix found.
struct PrefixMatch {
  int32_t blocks = 0;        ///< leading blocks of the request already cached
  int32_t unreferenced = 0;  ///< of those, blocks no running request holds (they count as free)
};

/// Not thread-safe: owned by the scheduler, used on its thread only.
class KvBlockPool {
 public:
  /// num_blocks > 0, block_size > 0.
  KvBlockPool(int32_t num_blocks, int32_t block_size, bool enable_prefix_caching);

  int32_t num_blocks() const { return static_cast<int32_t>(ref_count_.size()); }
  int32_t block_size() const { return block_size_; }
  bool prefix_caching() const { return prefix_caching_; }
  /// Blocks no request holds, cached ones included (an allocation may evict them).
  int32_t num_free() const { return num_free_; }
  /// Fraction of blocks held by requests, 0..1 (vllm:kv_cache_usage_perc).
  double usage() const { return 1.0 - static_cast<double>(num_free_) / static_cast<double>(num_blocks()); }
  /// Blocks that currently hold a cached (hashed) full block.
  int32_t num_cached() const { return static_cast<int32_t>(cached_.size()); }

  /// Longest prefix of `hashes`, at most max_blocks long, whose blocks are cached. Changes nothing.
  PrefixMatch match_prefix(std::span<const uint64_t> hashes, int32_t max_blocks) const;
  /// Takes a reference on the cached blocks of hashes[0, n) (n from match_prefix) and appends
  /// them to `table`.
  void acquire_cached(std::span<const uint64_t> hashes, int32_t n, std::vector<int32_t>& table);
  /// Appends n fresh blocks to `table`, evicting the least recently freed cached blocks.
  /// Precondition: n <= num_free().
  void allocate(int32_t n, std::vector<int32_t>& table);
  /// Records that `block` now holds the full block whose chained hash is `hash`. No-op when
  /// caching is off or another block already holds that hash (vLLM keeps the first).
  void cache_block(int32_t block, uint64_t hash);
  /// Drops one reference on each block of `table`, last block first, so a request's tail is
  /// evicted before its head.
  void release(std::span<const int32_t> table);

  /// Chained hashes of the full blocks of `tokens`; the salt (vLLM's cache_salt) enters the
  /// first block's hash, so different salts share nothing. Appends to `out`.
  static void chain_hashes(std::span<const int32_t> tokens, int32_t block_size, std::string_view salt,
                           std::vector<uint64_t>& out);

 private:
  void push_free_tail(int32_t block);
  void unlink_free(int32_t block);

  int32_t block_size_;
  bool prefix_caching_;
  int32_t num_free_ = 0;                 ///< blocks with ref_count 0 (= length of the free queue)
  std::vector<int32_t> ref_count_;       ///< per block: requests holding it
  std::vector<uint64_t> hash_;           ///< per block: its chained hash when has_hash_
  std::vector<uint8_t> has_hash_;        ///< per block: 1 when it is in cached_
  std::vector<int32_t> prev_;            ///< free queue links (-1 = none); valid while ref_count 0
  std::vector<int32_t> next_;
  int32_t head_ = -1;                    ///< next block to allocate (least recently freed)
  int32_t tail_ = -1;                    ///< most recently freed block
  std::unordered_map<uint64_t, int32_t> cached_;  ///< chained hash -> block holding it
};

}  // namespace sm::sim
