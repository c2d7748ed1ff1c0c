#pragma once
// The self-test streamers' chunk: a vLLM completions chunk with continuous usage and the time it
// was sent ("t": monotonic ns), written by patching digits at fixed offsets of one template.
#include <cstdint>
#include <string>

namespace sm {

struct ChunkTemplate {
  std::string text;     ///< one whole SSE event, "data: {...}\n\n"
  size_t stamp_at = 0;  ///< offset of the 19-digit time stamp
  size_t count_at = 0;  ///< offset of the 10-digit cumulative completion count
  size_t word_at = 0;   ///< offset of the text's 4 digits (the count's last four: the text varies,
                        ///< as a model's does, so the output checks do their full work)

  /// The template every streamer uses.
  static ChunkTemplate make();

  /// Appends `n` chunks to `out`, counting on from `sent_tokens` (advanced), each stamped `stamp_ns`.
  void append(std::string& out, int n, uint64_t& sent_tokens, int64_t stamp_ns) const;
};

}  // namespace sm
