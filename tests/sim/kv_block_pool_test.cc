#include "sim/kv_block_pool.h"

#include <gtest/gtest.h>

#include <numeric>

namespace sm::sim {
namespace {

std::vector<uint64_t> hashes_of(int32_t n_tokens, int32_t first_token, std::string_view salt = {}, int32_t block = 4) {
  std::vector<int32_t> tokens(static_cast<size_t>(n_tokens));
  std::iota(tokens.begin(), tokens.end(), first_token);
  std::vector<uint64_t> out;
  KvBlockPool::chain_hashes(tokens, block, salt, out);
  return out;
}

TEST(KvBlockPool, AllocatesAndReleasesEveryBlock) {
  KvBlockPool pool(8, 4, true);
  std::vector<int32_t> a, b;
  pool.allocate(5, a);
  pool.allocate(3, b);
  EXPECT_EQ(pool.num_free(), 0);
  EXPECT_DOUBLE_EQ(pool.usage(), 1.0);
  pool.release(a);
  EXPECT_EQ(pool.num_free(), 5);
  pool.release(b);
  EXPECT_EQ(pool.num_free(), 8);
  EXPECT_DOUBLE_EQ(pool.usage(), 0.0);
}

TEST(KvBlockPool, ChainedHashesCoverOnlyFullBlocksAndDependOnThePrefix) {
  EXPECT_EQ(hashes_of(11, 0).size(), 2u);  // 11 tokens in blocks of 4: two full blocks
  auto a = hashes_of(8, 0);
  auto b = hashes_of(8, 0);
  EXPECT_EQ(a, b);
  std::vector<int32_t> changed_first = {99, 1, 2, 3, 4, 5, 6, 7};
  std::vector<uint64_t> c;
  KvBlockPool::chain_hashes(changed_first, 4, {}, c);
  EXPECT_NE(c[0], a[0]);
  EXPECT_NE(c[1], a[1]) << "block 1 has the same tokens but a different prefix";
  EXPECT_NE(hashes_of(8, 0, "salt")[0], a[0]);
  EXPECT_NE(hashes_of(8, 0, "salt")[0], hashes_of(8, 0, "pepper")[0]);
}

TEST(KvBlockPool, CachedPrefixIsSharedByReference) {
  KvBlockPool pool(8, 4, true);
  auto h = hashes_of(12, 0);
  std::vector<int32_t> first;
  pool.allocate(3, first);
  for (int i = 0; i < 3; ++i) pool.cache_block(first[i], h[i]);
  PrefixMatch m = pool.match_prefix(h, 3);
  EXPECT_EQ(m.blocks, 3);
  EXPECT_EQ(m.unreferenced, 0);
  EXPECT_EQ(pool.match_prefix(h, 2).blocks, 2) << "limited by max_blocks";
  std::vector<int32_t> second;
  pool.acquire_cached(h, 3, second);
  EXPECT_EQ(second, first);
  EXPECT_EQ(pool.num_free(), 5) << "shared blocks are held once";
  pool.release(first);
  EXPECT_EQ(pool.num_free(), 5);
  pool.release(second);
  EXPECT_EQ(pool.num_free(), 8);
  m = pool.match_prefix(h, 3);
  EXPECT_EQ(m.blocks, 3) << "freed blocks stay cached until evicted";
  EXPECT_EQ(m.unreferenced, 3);
}

TEST(KvBlockPool, EvictsLeastRecentlyFreedCachedBlocksFirst) {
  KvBlockPool pool(4, 4, true);
  auto ha = hashes_of(8, 0);
  auto hb = hashes_of(8, 100);
  std::vector<int32_t> a, b;
  pool.allocate(2, a);
  pool.allocate(2, b);
  for (int i = 0; i < 2; ++i) {
    pool.cache_block(a[i], ha[i]);
    pool.cache_block(b[i], hb[i]);
  }
  pool.release(a);  // a freed first: evicted first
  pool.release(b);
  std::vector<int32_t> fresh;
  pool.allocate(1, fresh);
  // Within a request the tail is freed first, so a's last block goes before its first one.
  EXPECT_EQ(pool.match_prefix(ha, 2).blocks, 1);
  EXPECT_EQ(pool.match_prefix(hb, 2).blocks, 2);
  pool.allocate(1, fresh);
  EXPECT_EQ(pool.match_prefix(ha, 2).blocks, 0);
  EXPECT_EQ(pool.match_prefix(hb, 2).blocks, 2);
}

TEST(KvBlockPool, TakingAFreeCachedBlockRemovesItFromTheFreeQueue) {
  KvBlockPool pool(3, 4, true);
  auto h = hashes_of(4, 0);
  std::vector<int32_t> a;
  pool.allocate(1, a);
  pool.cache_block(a[0], h[0]);
  pool.release(a);
  std::vector<int32_t> b;
  pool.acquire_cached(h, 1, b);
  EXPECT_EQ(pool.num_free(), 2);
  std::vector<int32_t> rest;
  pool.allocate(2, rest);  // must not hand out the block b holds
  EXPECT_NE(rest[0], b[0]);
  EXPECT_NE(rest[1], b[0]);
  EXPECT_EQ(pool.num_free(), 0);
}

TEST(KvBlockPool, NoSharingWhenPrefixCachingIsOff) {
  KvBlockPool pool(4, 4, false);
  auto h = hashes_of(8, 0);
  std::vector<int32_t> a;
  pool.allocate(2, a);
  pool.cache_block(a[0], h[0]);
  EXPECT_EQ(pool.match_prefix(h, 2).blocks, 0);
}

}  // namespace
}  // namespace sm::sim
