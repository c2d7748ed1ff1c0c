#include "metrics/output_check.h"

#include <algorithm>

#include "core/text.h"
#include "metrics/request_record.h"

namespace sm {

std::string_view to_string(OutputFlaw flaw) {
  switch (flaw) {
    case OutputFlaw::None: return "none";
    case OutputFlaw::Repeat: return "repeat";
    case OutputFlaw::Empty: return "empty";
    case OutputFlaw::NotText: return "not_text";
    case OutputFlaw::CountMismatch: return "count_mismatch";
  }
  return "none";
}

void OutputCheck::count_characters(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = p[i];
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: part of the character before
    ++chars_;
    if (c < 0x20) {
      if (c != '\t' && c != '\n' && c != '\r') ++bad_chars_;
    } else if (c == 0x7F) {
      ++bad_chars_;
    } else if (c == 0xC2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F) {
      ++bad_chars_;  // a C1 control character, U+0080..U+009F
    } else if (c == 0xEF && i + 2 < n && p[i + 1] == 0xBF && p[i + 2] == 0xBD) {
      ++bad_chars_;  // U+FFFD, the replacement character
    }
  }
}

void OutputCheck::add(std::string_view reasoning, std::string_view text, int64_t tokens) {
  if (!reasoning.empty()) {
    note_text(reasoning);
    // One call per chunk: a chunk of reasoning and content counts its tokens once.
    loop_.add(reasoning, text.empty() ? tokens : 0);
  }
  if (!text.empty() || reasoning.empty()) {
    note_text(text);
    loop_.add(text, tokens);
  }
}

void OutputCheck::note_text(std::string_view part) {
  if (part.empty()) return;
  text_bytes_ += static_cast<int64_t>(part.size());
  count_characters(part);
  if (head_.size() < kLoopExcerptBytes) head_.append(part.substr(0, kLoopExcerptBytes - head_.size()));
}

void OutputCheck::finish(int64_t tokens, OutputFlaw& flaw, std::string& excerpt) {
  loop_.finish();
  const LoopVerdict& loop = loop_.verdict();
  flaw = OutputFlaw::None;
  excerpt.clear();
  if (loop.kind == LoopKind::Repeat) {
    flaw = OutputFlaw::Repeat;
    excerpt = loop.excerpt;
  } else if (loop.kind == LoopKind::Empty) {
    flaw = OutputFlaw::Empty;
  } else if (chars_ >= kNotTextMinChars && 2 * bad_chars_ >= chars_) {
    flaw = OutputFlaw::NotText;
    excerpt = utf8_excerpt(head_, kLoopExcerptBytes);
  } else if (tokens >= kCountCheckMinTokens) {
    const double bytes_per_token = static_cast<double>(text_bytes_) / static_cast<double>(tokens);
    if (bytes_per_token > kMaxBytesPerToken || bytes_per_token < kMinBytesPerToken) {
      flaw = OutputFlaw::CountMismatch;
      excerpt = utf8_excerpt(head_, kLoopExcerptBytes);
    }
  }
}

void OutputTally::add(const RequestRecord& r) {
  if (r.end == RequestEnd::Failed || r.end == RequestEnd::Running || r.tokens == 0) return;
  ++counts_.requests;
  switch (r.output_flaw) {
    case OutputFlaw::None: return;
    case OutputFlaw::Repeat: ++counts_.repeat; break;
    case OutputFlaw::Empty: ++counts_.empty; break;
    case OutputFlaw::NotText: ++counts_.not_text; break;
    case OutputFlaw::CountMismatch: ++counts_.count_mismatch; break;
  }
  const bool loop = is_loop(r.output_flaw);
  OutputFlaw& flaw = loop ? loop_flaw_ : text_flaw_;
  std::string& excerpt = loop ? loop_excerpt_ : text_excerpt_;
  if (flaw == OutputFlaw::None || (excerpt.empty() && !r.output_excerpt.empty())) {
    flaw = r.output_flaw;
    excerpt = r.output_excerpt;
  }
}

OutputCheckSummary OutputTally::finish() const {
  OutputCheckSummary s = counts_;
  auto over_share = [&](int64_t n) {
    return n > 0 && static_cast<double>(n) > kOutputFlawShare * static_cast<double>(s.requests);
  };
  if (over_share(s.repeat + s.empty)) {
    s.verdict = "loop";
    s.flaw = std::string(to_string(loop_flaw_));
    s.excerpt = loop_excerpt_;
  } else if (over_share(s.not_text + s.count_mismatch)) {
    s.verdict = "not_text";
    s.flaw = std::string(to_string(text_flaw_));
    s.excerpt = text_excerpt_;
  }
  return s;
}

OutputCheckSummary summarize_output(std::span<const RequestRecord> records) {
  OutputTally tally;
  for (const RequestRecord& r : records) tally.add(r);
  return tally.finish();
}

}  // namespace sm
