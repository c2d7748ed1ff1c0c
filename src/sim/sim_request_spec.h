#pragma once
// One generation request as the scheduler sees it: already tokenized, validated and hashed.
#include <cstdint>
#include <vector>

namespace sm::sim {

struct SimRequestSpec {
  int64_t prompt_tokens = 0;                ///< tokens of the prompt (chat template included), > 0
  std::vector<uint64_t> prompt_block_hashes;  ///< chained hashes of the prompt's full blocks (salted)
  int64_t max_tokens = 1;                   ///< output tokens at most (max_tokens / max_completion_tokens)
  int64_t min_tokens = 0;                   ///< EOS is suppressed before this many output tokens
  bool ignore_eos = false;                  ///< generate exactly max_tokens (the benchmark's way)
  int64_t natural_length = 0;               ///< without ignore_eos the model samples EOS as token
                                            ///< number natural_length (1-based); 0 = never
};

}  // namespace sm::sim
