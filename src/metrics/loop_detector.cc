#include "metrics/loop_detector.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/text.h"

namespace sm {

std::string_view to_string(LoopKind kind) {
  switch (kind) {
    case LoopKind::None: return "none";
    case LoopKind::Repeat: return "repeat";
    case LoopKind::Empty: return "empty";
  }
  return "none";
}

std::pair<size_t, size_t> trailing_repeat(std::string_view text, size_t max_period, size_t min_cycles,
                                          size_t min_span, size_t min_run) {
  const size_t n = text.size();
  if (n < 2) return {0, 0};
  // Only a period p with text[n-1-p] == text[n-1] can repeat at the end: memrchr (vectorised in
  // glibc) finds those candidates nearest first, so the shortest period is tried first and varied
  // text costs a scan of the last max_period bytes plus a few comparisons per candidate.
  const char* base = text.data();
  const size_t lowest = n - 1 - std::min(max_period, n - 1);  // text[lowest] is max_period back
  size_t below = n - 1;                                        // search text[lowest, below)
  // The run of text[n-1] at the end: every period within it has a cycle of that one byte, and its
  // repetition is exactly the run, which must reach min_run (padding of a table is such a run).
  size_t one_byte_run = 1;
  while (one_byte_run < n && base[n - 1 - one_byte_run] == base[n - 1]) ++one_byte_run;
  if (one_byte_run < std::max(min_run, std::max(min_span, min_cycles))) below = n - one_byte_run;
  while (below > lowest) {
    const void* hit = memrchr(base + lowest, base[n - 1], below - lowest);
    if (hit == nullptr) break;
    const size_t at = static_cast<size_t>(static_cast<const char*>(hit) - base);
    below = at;
    const size_t p = n - 1 - at;
    // A span this period needs that the text cannot hold: neither can any longer period's (and a
    // text shorter than min_span holds none, however repetitive: no scan at all).
    const size_t span_needed = std::max(min_span, min_cycles * p);
    if (span_needed > n) break;
    // How far back from the end text[i] == text[i - p] holds: the repeated span is that run plus
    // one period.
    const size_t need = span_needed - p;  // run length that makes a loop
    size_t run = 0;
    while (run < need && run + p < n && text[n - 1 - run] == text[n - 1 - run - p]) ++run;
    if (run >= need) {
      // Extend to the whole run, for the span reported.
      while (run + p < n && text[n - 1 - run] == text[n - 1 - run - p]) ++run;
      return {p, run + p};
    }
  }
  return {0, 0};
}

namespace {

// Any character but ASCII whitespace (what isspace calls space in the C locale).
bool visible(std::string_view text) {
  for (char c : text)
    if (c != ' ' && (c < '\t' || c > '\r')) return true;
  return false;
}

}  // namespace

void LoopDetector::add(std::string_view text, int64_t tokens) {
  if (visible(text)) tokens_without_text_ = 0;
  else tokens_without_text_ += std::max<int64_t>(tokens, 0);
  if (verdict_.kind == LoopKind::None && tokens_without_text_ >= kLoopEmptyTokens) verdict_.kind = LoopKind::Empty;
  // A repeat found stays: the text after it need not be kept or checked.
  if (text.empty() || verdict_.kind == LoopKind::Repeat) return;
  tail_.append(text);
  total_bytes_ += text.size();
  if (tail_.size() > 2 * kLoopTailBytes) tail_.erase(0, tail_.size() - kLoopTailBytes);
  unchecked_bytes_ += text.size();
  if (unchecked_bytes_ >= kLoopCheckEveryBytes) check_repeat();
}

void LoopDetector::finish() {
  if (unchecked_bytes_ > 0) check_repeat();
  // A short answer held whole: mostly a loop is a loop.
  if (verdict_.kind != LoopKind::Repeat && total_bytes_ == tail_.size())
    check_repeat(kLoopShortMinCycles, std::max(kLoopShortMinSpanBytes, (total_bytes_ + 1) / 2), 0);
}

void LoopDetector::check_repeat(size_t min_cycles, size_t min_span, size_t min_run) {
  unchecked_bytes_ = 0;
  if (verdict_.kind == LoopKind::Repeat) return;
  const auto [period, span] = trailing_repeat(tail_, kLoopMaxPeriodBytes, min_cycles, min_span, min_run);
  if (period == 0) return;
  verdict_.kind = LoopKind::Repeat;
  verdict_.period_bytes = period;
  verdict_.repeated_bytes = span;
  verdict_.excerpt = utf8_excerpt(std::string_view(tail_).substr(tail_.size() - period), kLoopExcerptBytes);
}

}  // namespace sm
