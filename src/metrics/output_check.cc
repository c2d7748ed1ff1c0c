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

OutputCheckSummary summarize_output(std::span<const RequestRecord> records) {
  OutputCheckSummary s;
  for (const RequestRecord& r : records) {
    if (r.end == RequestEnd::Failed || r.end == RequestEnd::Running || r.tokens == 0) continue;
    ++s.requests;
    switch (r.output_flaw) {
      case OutputFlaw::None: break;
      case OutputFlaw::Repeat: ++s.repeat; break;
      case OutputFlaw::Empty: ++s.empty; break;
      case OutputFlaw::NotText: ++s.not_text; break;
      case OutputFlaw::CountMismatch: ++s.count_mismatch; break;
    }
  }
  auto over_share = [&](int64_t n) {
    return n > 0 && static_cast<double>(n) > kOutputFlawShare * static_cast<double>(s.requests);
  };
  bool (*counts)(OutputFlaw) = nullptr;
  if (over_share(s.repeat + s.empty)) {
    s.verdict = "loop";
    counts = is_loop;
  } else if (over_share(s.not_text + s.count_mismatch)) {
    s.verdict = "not_text";
    counts = [](OutputFlaw f) { return f == OutputFlaw::NotText || f == OutputFlaw::CountMismatch; };
  }
  if (counts == nullptr) return s;
  // The excerpt: the first request with a flaw of the verdict's kind (a cycle before no text).
  const RequestRecord* example = nullptr;
  for (const RequestRecord& r : records)
    if (counts(r.output_flaw) && r.end != RequestEnd::Failed && r.tokens > 0 &&
        (example == nullptr || (example->output_excerpt.empty() && !r.output_excerpt.empty())))
      example = &r;
  if (example != nullptr) {
    s.flaw = std::string(to_string(example->output_flaw));
    s.excerpt = example->output_excerpt;
  }
  return s;
}

}  // namespace sm
