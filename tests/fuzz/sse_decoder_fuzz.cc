// libFuzzer target: the SSE decoder must never crash, never hold more than its bound, and give
// the same events however the input is split.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "net/sse_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // First byte picks the split size; the rest is the stream.
  const size_t piece = 1 + data[0] % 64;
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  constexpr size_t kMax = 4096;

  std::vector<std::string> whole, split;
  bool whole_overflow = false, split_overflow = false;
  {
    sm::SseDecoder dec(kMax);
    auto sink = [&](std::string_view d) { whole.emplace_back(d); };
    whole_overflow = dec.feed(input, sink) == sm::SseDecoder::Status::EventTooLarge;
    if (dec.buffered_bytes() > kMax + 1) std::abort();
    dec.finish(sink);
  }
  {
    sm::SseDecoder dec(kMax);
    auto sink = [&](std::string_view d) { split.emplace_back(d); };
    for (size_t i = 0; i < input.size(); i += piece) {
      if (dec.feed(input.substr(i, piece), sink) == sm::SseDecoder::Status::EventTooLarge) split_overflow = true;
      if (dec.buffered_bytes() > kMax + 1) std::abort();
    }
    dec.finish(sink);
  }
  for (const auto& e : whole)
    if (e.size() > kMax) std::abort();
  // Without overflow (which resets the decoder at a split-dependent point) both must agree.
  if (!whole_overflow && !split_overflow && whole != split) std::abort();
  return 0;
}
