#include "support/server_records.h"

#include <cmath>

namespace sm::test {

std::vector<RequestRecord> to_request_records(const std::vector<ServedRequest>& served) {
  std::vector<RequestRecord> out;
  for (const auto& s : served) {
    RequestRecord r;
    r.id = s.info.index;
    r.max_tokens = s.info.max_tokens;
    r.send_ns = s.received_ns;
    for (size_t i = 0; i < s.chunk_sent_ns.size(); ++i) {
      r.chunks.push_back({s.chunk_sent_ns[i], s.chunk_tokens[i]});
      r.tokens += s.chunk_tokens[i];
    }
    if (!r.chunks.empty()) r.first_token_ns = r.chunks.front().t_ns;
    if (s.completed) {
      r.end = r.tokens >= r.max_tokens ? RequestEnd::Finished : RequestEnd::EndedEarly;
      r.end_ns = r.chunks.empty() ? s.received_ns : r.chunks.back().t_ns;
    } else {
      r.end = RequestEnd::Cut;
    }
    r.source = TokenSource::UsageContinuous;
    out.push_back(std::move(r));
  }
  return out;
}

bool within_relative(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::fabs(b); }

}  // namespace sm::test
