#pragma once
// Seeded randomness, one generator per owner (never a global shared by threads).
#include <cstdint>

namespace sm {

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
