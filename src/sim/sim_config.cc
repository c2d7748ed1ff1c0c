#include "sim/sim_config.h"

#include <fmt/format.h>

namespace sm::sim {

Result<void> SimConfig::validate() const {
  if (block_size <= 0 || block_size > 4096) return fail(ErrorCode::InvalidArgument, "block size must be in 1..4096");
  if (max_model_len <= 1) return fail(ErrorCode::InvalidArgument, "max model length must be at least 2 tokens");
  if (kv_capacity_tokens < block_size)
    return fail(ErrorCode::InvalidArgument, "KV capacity must hold at least one block");
  // vLLM refuses to start when one max-length request cannot fit the KV cache; so do we.
  int64_t usable = kv_capacity_tokens / block_size * block_size;
  if (usable < max_model_len)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("max model length {} is larger than the KV cache ({} tokens): lower it or raise the capacity",
                            max_model_len, usable));
  if (max_num_seqs <= 0) return fail(ErrorCode::InvalidArgument, "max-num-seqs must be positive");
  if (max_num_batched_tokens <= 0) return fail(ErrorCode::InvalidArgument, "max-num-batched-tokens must be positive");
  if (stream_interval <= 0) return fail(ErrorCode::InvalidArgument, "stream interval must be positive");
  if (natural_length_min < 1 || natural_length_max < natural_length_min)
    return fail(ErrorCode::InvalidArgument, "natural answer length range is empty");
  if (spec_tokens < 0 || spec_tokens > 16)
    return fail(ErrorCode::InvalidArgument, "speculative tokens must be in 0..16");
  if (!(spec_accept_rate >= 0 && spec_accept_rate <= 1))
    return fail(ErrorCode::InvalidArgument, "the draft acceptance rate must be in 0..1");
  if (model_id().empty()) return fail(ErrorCode::InvalidArgument, "model name is empty");
  return {};
}

}  // namespace sm::sim
