#include "metrics/mixed_prefill.h"

#include <algorithm>
#include <cmath>

#include "core/clock.h"

namespace sm {

int64_t background_tokens_between(std::span<const RequestRecord> records, int32_t intruder_slot, int64_t begin_ns,
                                  int64_t end_ns) {
  int64_t tokens = 0;
  for (const RequestRecord& r : records) {
    if (r.slot == intruder_slot) continue;
    for (const ChunkStamp& c : r.chunks)
      if (c.t_ns >= begin_ns && c.t_ns < end_ns) tokens += c.tokens;
  }
  return tokens;
}

namespace {

std::optional<double> rate_between(std::span<const RequestRecord> records, int32_t intruder_slot, int64_t begin_ns,
                                   int64_t end_ns) {
  if (end_ns <= begin_ns) return std::nullopt;
  return static_cast<double>(background_tokens_between(records, intruder_slot, begin_ns, end_ns)) /
         (static_cast<double>(end_ns - begin_ns) / kNsPerSD);
}

// The longest pause between two chunks of one background stream that overlaps [from_ns, to_ns].
std::optional<double> longest_gap_ms(std::span<const RequestRecord> records, int32_t intruder_slot, int64_t from_ns,
                                     int64_t to_ns) {
  std::optional<int64_t> longest;
  for (const RequestRecord& r : records) {
    if (r.slot == intruder_slot) continue;
    for (size_t i = 1; i < r.chunks.size(); ++i) {
      const int64_t a = r.chunks[i - 1].t_ns, b = r.chunks[i].t_ns;
      if (b > from_ns && a < to_ns) longest = std::max(longest.value_or(0), b - a);
    }
  }
  if (!longest) return std::nullopt;
  return static_cast<double>(*longest) / kNsPerMsD;
}

}  // namespace

void compute_mixed_prefill_metrics(std::span<const RequestRecord> records, DecodeWindow window, int32_t intruder_slot,
                                   MixedPrefillRow& row) {
  const auto it = std::find_if(records.begin(), records.end(),
                               [&](const RequestRecord& r) { return r.slot == intruder_slot; });
  row.timeline_tok_s.clear();
  const double bin_s = row.timeline_bin_s > 0 ? row.timeline_bin_s : 1;
  const int64_t bin_ns = static_cast<int64_t>(bin_s * kNsPerSD);
  for (int64_t t = window.begin_ns; t < window.end_ns; t += bin_ns) {
    const int64_t end = std::min(t + bin_ns, window.end_ns);
    row.timeline_tok_s.push_back(rate_between(records, intruder_slot, t, end).value_or(0));
  }
  if (it == records.end()) {
    row.status = CellStatus::Error;
    row.error = "the long prompt was not sent";
    return;
  }
  const RequestRecord& intruder = *it;
  row.sent_at_s = static_cast<double>(intruder.send_ns - window.begin_ns) / kNsPerSD;
  row.background_before_tok_s = rate_between(records, intruder_slot, window.begin_ns, intruder.send_ns);
  if (intruder.first_token_ns < 0) {
    row.status = CellStatus::Error;
    row.error = intruder.error.empty() ? "the long prompt got no token while the streams decoded"
                                       : "the long prompt failed: " + intruder.error;
    return;
  }
  const int64_t first_ns = intruder.first_token_ns;
  row.first_token_at_s = static_cast<double>(first_ns - window.begin_ns) / kNsPerSD;
  row.ttft_loaded_ms = static_cast<double>(first_ns - intruder.send_ns) / kNsPerMsD;
  row.background_during_tok_s = rate_between(records, intruder_slot, intruder.send_ns, first_ns);
  row.background_after_tok_s = rate_between(records, intruder_slot, first_ns, window.end_ns);
  row.longest_gap_ms = longest_gap_ms(records, intruder_slot, intruder.send_ns, first_ns);
  if (!row.background_before_tok_s) {
    row.status = CellStatus::Error;
    row.error = "the long prompt was sent before the streams decoded";
    return;
  }
  row.status = CellStatus::Valid;
}

}  // namespace sm
