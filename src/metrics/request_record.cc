#include "metrics/request_record.h"

namespace sm {

std::string_view to_string(TokenSource source) {
  switch (source) {
    case TokenSource::UsageContinuous: return "usage_continuous";
    case TokenSource::Timings: return "timings";
    case TokenSource::TokenIds: return "token_ids";
    case TokenSource::UsageFinal: return "usage_final";
    case TokenSource::FinishLength: return "finish_length";
    case TokenSource::ChunksScaled: return "chunks_scaled";
    case TokenSource::Chunks: return "chunks";
  }
  return "unknown";
}

void spread_tokens(RequestRecord& r, int64_t total) {
  const int64_t k = static_cast<int64_t>(r.chunks.size());
  if (k == 0 || total == r.tokens) return;
  std::vector<ChunkStamp> spread;
  spread.reserve(r.chunks.size());
  auto share_before = [&](int64_t i) { return (i * total + k - 1) / k; };  // ⌈i·total/k⌉
  for (int64_t i = 0; i < k; ++i) {
    const int64_t n = share_before(i + 1) - share_before(i);
    if (n > 0) spread.push_back({r.chunks[static_cast<size_t>(i)].t_ns, static_cast<int32_t>(n)});
  }
  r.chunks = std::move(spread);
  r.tokens = total;
}

}  // namespace sm
