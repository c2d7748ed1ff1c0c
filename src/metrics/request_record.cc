#include "metrics/request_record.h"

namespace sm {

std::string_view to_string(TokenSource source) {
  switch (source) {
    case TokenSource::UsageContinuous: return "usage_continuous";
    case TokenSource::Timings: return "timings";
    case TokenSource::TokenIds: return "token_ids";
    case TokenSource::UsageFinal: return "usage_final";
    case TokenSource::Chunks: return "chunks";
  }
  return "unknown";
}

}  // namespace sm
