#pragma once
// Seeded randomness, one generator per owner (never a global shared by threads).
#include <cstdint>

namespace sm {

/// splitmix64's finaliser: spreads a counter or a combined hash over all 64 bits (a bijection).
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// xoshiro256** seeded through splitmix64: fast, reproducible from one 64-bit seed.
/// Not thread-safe: give each thread or component its own.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next_u64();
  /// Uniform integer in [0, bound); bound > 0.
  uint64_t below(uint64_t bound);
  /// Uniform double in [0, 1).
  double next_double();

 private:
  uint64_t s_[4];
};

}  // namespace sm
