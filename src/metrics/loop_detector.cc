#include "metrics/loop_detector.h"

#include <algorithm>
#include <cctype>

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
                                          size_t min_span) {
  const size_t n = text.size();
  for (size_t p = 1; p <= max_period && p < n; ++p) {
    // How far back from the end text[i] == text[i - p] holds: the repeated span is that run plus
    // one period. Varied text fails at the first byte for almost every p.
    const size_t need = std::max(min_span, min_cycles * p) - p;  // run length that makes a loop
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

// `text` from its first whole UTF-8 character, cut to at most `max` bytes without splitting one.
std::string utf8_prefix(std::string_view text, size_t max) {
  while (!text.empty() && (static_cast<unsigned char>(text.front()) & 0xC0) == 0x80) text.remove_prefix(1);
  if (text.size() <= max) return std::string(text);
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end));
}

bool visible(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return !std::isspace(static_cast<unsigned char>(c)); });
}

}  // namespace

void LoopDetector::add(std::string_view text, int64_t tokens) {
  if (visible(text)) tokens_without_text_ = 0;
  else tokens_without_text_ += std::max<int64_t>(tokens, 0);
  if (verdict_.kind == LoopKind::None && tokens_without_text_ >= kLoopEmptyTokens) verdict_.kind = LoopKind::Empty;
  if (text.empty()) return;
  tail_.append(text);
  if (tail_.size() > 2 * kLoopTailBytes) tail_.erase(0, tail_.size() - kLoopTailBytes);
  unchecked_bytes_ += text.size();
  if (unchecked_bytes_ >= kLoopCheckEveryBytes) check_repeat();
}

void LoopDetector::finish() {
  if (unchecked_bytes_ > 0) check_repeat();
}

void LoopDetector::check_repeat() {
  unchecked_bytes_ = 0;
  if (verdict_.kind == LoopKind::Repeat) return;
  const auto [period, span] = trailing_repeat(tail_, kLoopMaxPeriodBytes, kLoopMinCycles, kLoopMinSpanBytes);
  if (period == 0) return;
  verdict_.kind = LoopKind::Repeat;
  verdict_.period_bytes = period;
  verdict_.repeated_bytes = span;
  verdict_.excerpt = utf8_prefix(std::string_view(tail_).substr(tail_.size() - period), kLoopExcerptBytes);
}

}  // namespace sm
