#include "selftest/chunk_template.h"

namespace sm {

namespace {

// Right-aligned digits padded with spaces (JSON allows whitespace before a number; leading
// zeros it does not).
void put_digits(char* at, uint64_t value, int width) {
  for (int i = width - 1; i >= 0; --i) {
    at[i] = (value == 0 && i < width - 1) ? ' ' : static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

}  // namespace

ChunkTemplate ChunkTemplate::make() {
  ChunkTemplate t;
  t.text = R"(data: {"id":"cmpl-selftest","object":"text_completion","created":1764600000,"model":"selftest",)"
           R"("choices":[{"index":0,"text":" tok)";
  t.word_at = t.text.size();
  t.text += "0000";
  t.text += R"(","logprobs":null,"finish_reason":null}],)"
            R"("usage":{"prompt_tokens":16,"completion_tokens":)";
  t.count_at = t.text.size();
  t.text += "0000000000";
  t.text += R"(,"total_tokens":0},"t":)";
  t.stamp_at = t.text.size();
  t.text += "0000000000000000000";
  t.text += "}\n\n";
  return t;
}

void ChunkTemplate::append(std::string& out, int n, uint64_t& sent_tokens, int64_t stamp_ns) const {
  for (int i = 0; i < n; ++i) {
    size_t at = out.size();
    out += text;
    put_digits(out.data() + at + count_at, ++sent_tokens % 10000000000ULL, 10);
    uint64_t word = sent_tokens;
    for (int d = 3; d >= 0; --d, word /= 10) out[at + word_at + static_cast<size_t>(d)] = static_cast<char>('0' + word % 10);
    put_digits(out.data() + at + stamp_at, static_cast<uint64_t>(stamp_ns), 19);
  }
}

}  // namespace sm
