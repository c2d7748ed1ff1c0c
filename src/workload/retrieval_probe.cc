#include "workload/retrieval_probe.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <vector>

#include "core/text.h"

namespace sm {

namespace {

// One word each, so the simulated tokenizer and BPE vocabularies alike read them whole.
constexpr std::array<std::string_view, 16> kCities = {
    "Lisbon", "Oslo",   "Nairobi", "Lima",  "Hanoi",    "Quito",  "Dakar", "Tbilisi",
    "Manila", "Zagreb", "Bogota",  "Accra", "Helsinki", "Muscat", "Riga",  "Montevideo"};

constexpr std::string_view kPasskeyLead = "The passkey is ";
constexpr std::string_view kCityLead = "The vault is in ";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Every number in `text`: runs of digits, with one "," or "-" allowed between two digits
// ("4,821,937" and "482-1937" are 4821937).
std::vector<std::string> numbers_in(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (is_digit(c)) {
      current.push_back(c);
      continue;
    }
    const bool joins = (c == ',' || c == '-') && !current.empty() && i + 1 < text.size() && is_digit(text[i + 1]);
    if (joins) continue;
    if (!current.empty()) out.push_back(std::move(current));
    current.clear();
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

bool contains_word_ci(std::string_view text, std::string_view word) {
  const std::string t = ascii_lower(text);
  const std::string w = ascii_lower(word);
  for (size_t at = t.find(w); at != std::string::npos; at = t.find(w, at + 1)) {
    const bool starts = at == 0 || !std::isalpha(static_cast<unsigned char>(t[at - 1]));
    const size_t end = at + w.size();
    const bool ends = end == t.size() || !std::isalpha(static_cast<unsigned char>(t[end]));
    if (starts && ends) return true;
  }
  return false;
}

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

Needle make_needle(Rng& rng) {
  Needle n;
  n.passkey = std::to_string(1'000'000 + rng.below(9'000'000));
  n.city = std::string(kCities[rng.below(kCities.size())]);
  return n;
}

std::string needle_text(const Needle& needle) {
  return fmt::format(" {}{}. {}{}. Remember both.", kPasskeyLead, needle.passkey, kCityLead, needle.city);
}

std::string retrieval_question_text() { return fmt::format("\n\nQuestion: {}\nAnswer:", kRetrievalQuestion); }

std::optional<Needle> find_needle(std::string_view text) {
  const size_t at = text.find(kPasskeyLead);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + kPasskeyLead.size();
  Needle n;
  while (i < text.size() && is_digit(text[i])) n.passkey.push_back(text[i++]);
  if (n.passkey.empty() || i >= text.size() || text[i] != '.') return std::nullopt;
  const size_t city_at = text.find(kCityLead, i);
  if (city_at == std::string_view::npos || city_at > i + 2) return std::nullopt;  // the next sentence
  size_t j = city_at + kCityLead.size();
  while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) n.city.push_back(text[j++]);
  if (n.city.empty() || j >= text.size() || text[j] != '.') return std::nullopt;
  return n;
}

bool asks_retrieval_question(std::string_view text) { return text.find(kRetrievalQuestion) != std::string_view::npos; }

Result<RetrievalPrompt> build_retrieval_prompt(PromptBuilder& builder, int64_t context, double depth,
                                               const Needle& needle, const std::string& head) {
  const int64_t before_target = std::max<int64_t>(1, std::llround(depth * static_cast<double>(context)));
  auto before = builder.build(before_target, head);
  if (!before) return std::unexpected(before.error());
  auto full = builder.build(context, before->text + needle_text(needle), retrieval_question_text());
  if (!full) return std::unexpected(full.error());
  RetrievalPrompt p;
  p.text = std::move(full->text);
  p.tokens = full->counted_tokens;
  p.tokens_before_needle = before->counted_tokens;
  p.depth = p.tokens > 0 ? static_cast<double>(p.tokens_before_needle) / static_cast<double>(p.tokens) : 0;
  p.needle = needle;
  return p;
}

int64_t digit_edit_distance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int64_t>> d(n + 1, std::vector<int64_t>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int64_t>(i);
  for (size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int64_t>(j);
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= m; ++j) {
      const int64_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

RetrievalScore score_retrieval_answer(const Needle& needle, const RetrievalAnswer& answer, int64_t sent_tokens) {
  RetrievalScore score;
  score.fact_found = !needle.city.empty() && contains_word_ci(answer.text, needle.city);
  if (answer.prompt_tokens && static_cast<double>(*answer.prompt_tokens) <
                                  kTruncatedPromptShare * static_cast<double>(sent_tokens)) {
    score.verdict = RetrievalVerdict::Truncated;
    return score;
  }
  const auto numbers = numbers_in(answer.text);
  if (blank(answer.text) || (numbers.empty() && answer.finish_reason == "length")) {
    score.verdict = RetrievalVerdict::Truncated;
    return score;
  }
  score.verdict = RetrievalVerdict::Wrong;
  for (const auto& number : numbers) {
    if (number == needle.passkey) {
      score.verdict = RetrievalVerdict::Exact;
      return score;
    }
    if (digit_edit_distance(number, needle.passkey) <= 2) score.verdict = RetrievalVerdict::NearMiss;
  }
  return score;
}

std::string answer_excerpt(std::string_view text, size_t max_bytes) {
  if (text.size() > max_bytes) {
    size_t cut = max_bytes;
    // Back off continuation bytes (10xxxxxx) so the cut does not split a character.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut);
  }
  return escape_controls(text);
}

}  // namespace sm
