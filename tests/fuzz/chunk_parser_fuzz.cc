// libFuzzer target: the chunk parser must never crash on any bytes, and what it reports must be
// self-consistent.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "engines/chunk_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static sm::ChunkParser parser;
  sm::ChunkInfo info;
  parser.parse(std::string_view(reinterpret_cast<const char*>(data), size), info);
  if (info.kind == sm::ChunkInfo::Kind::Invalid && info.error_message.empty()) std::abort();
  if (info.has_token && !info.has_choices) std::abort();
  if (info.token_ids < -1) std::abort();
  return 0;
}
