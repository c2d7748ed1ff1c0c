#include "workload/prompt_builder.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

namespace sm {

namespace {

// Short common words: one token each in most BPE vocabularies, so lengths are easy to hit.
constexpr std::array<std::string_view, 96> kWords = {
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on", "not",
    "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "had", "they", "you", "were",
    "their", "one", "all", "we", "can", "her", "has", "there", "been", "if", "more", "when", "will", "would",
    "who", "so", "no", "time", "up", "out", "into", "some", "than", "them", "other", "its", "two", "then",
    "these", "may", "first", "any", "new", "like", "our", "over", "also", "did", "many", "after", "most",
    "where", "made", "only", "work", "such", "could", "year", "way", "well", "each", "long", "still", "water",
    "light", "small", "house", "world", "land", "city", "road", "river", "market", "music", "paper"};

}  // namespace

PromptBuilder::PromptBuilder(TokenCounter& counter, uint64_t seed, std::shared_ptr<const PromptCorpus> corpus)
    : counter_(counter), rng_(seed), corpus_(std::move(corpus)) {
  if (!corpus_ || corpus_->piece_ends.empty()) {
    corpus_.reset();
    return;
  }
  // Start at a seeded piece, moved on to the first that begins a line (the corpus's first if none).
  const auto& ends = corpus_->piece_ends;
  const std::string& text = corpus_->text;
  auto starts_line = [&](size_t i) {
    if (i == 0) return true;
    const size_t newline = text.find('\n', ends[i - 1]);
    return newline != std::string::npos && newline < text.find_first_not_of(" \t\r\n", ends[i - 1]);
  };
  size_t start = static_cast<size_t>(rng_.below(ends.size()));
  while (start < ends.size() && !starts_line(start)) ++start;
  next_piece_ = start < ends.size() ? start : 0;
}

void PromptBuilder::append_piece() {
  const auto& ends = corpus_->piece_ends;
  const std::string& text = corpus_->text;
  size_t begin = next_piece_ == 0 ? 0 : ends[next_piece_ - 1];
  // The first piece after the head, or after wrapping, starts a paragraph of its own.
  const size_t word = text.find_first_not_of(" \t\r\n", begin);
  if (filler_word_ends_.empty() || next_piece_ == 0) {
    filler_text_.append(filler_word_ends_.empty() ? "\n" : "\n\n");
    begin = std::min<size_t>(word, ends[next_piece_]);
  }
  filler_text_.append(text, begin, ends[next_piece_] - begin);
  next_piece_ = next_piece_ + 1 < ends.size() ? next_piece_ + 1 : 0;
}

const std::string& PromptBuilder::filler(size_t words) {
  while (filler_word_ends_.size() < words) {
    if (corpus_) {
      append_piece();
    } else {
      filler_text_.push_back(' ');
      filler_text_.append(kWords[rng_.below(kWords.size())]);
    }
    filler_word_ends_.push_back(filler_text_.size());
  }
  return filler_text_;
}

Result<int64_t> PromptBuilder::count(BuiltPrompt& p, const std::string& text) {
  ++p.count_calls;
  return counter_.count(text);
}

Result<BuiltPrompt> PromptBuilder::build(int64_t target, const std::string& head, const std::string& tail) {
  BuiltPrompt p;
  p.target_tokens = target;
  auto head_tokens = count(p, head + tail);
  if (!head_tokens) return std::unexpected(head_tokens.error());
  if (target <= *head_tokens) {
    p.text = head + tail;
    p.counted_tokens = *head_tokens;
    return p;
  }
  if (tokens_per_word_ <= 0) {
    constexpr size_t kSample = 512;
    filler(kSample);
    auto sample = count(p, head + filler_text_.substr(0, filler_word_ends_[kSample - 1]) + tail);
    if (!sample) return std::unexpected(sample.error());
    tokens_per_word_ = std::max(0.25, static_cast<double>(*sample - *head_tokens) / kSample);
  }
  // The filler is edited between head and tail: `body` is head + filler, the text is body + tail.
  auto body_with = [&](size_t words) {
    return words == 0 ? head : head + filler(words).substr(0, filler_word_ends_[words - 1]);
  };
  size_t words = static_cast<size_t>(std::max(1.0, std::floor(static_cast<double>(target - *head_tokens) / tokens_per_word_)));
  std::string best_body;
  int64_t best_count = -1;
  auto consider = [&](const std::string& body, int64_t n) {
    if (best_count < 0 || std::llabs(n - target) < std::llabs(best_count - target) ||
        (std::llabs(n - target) == std::llabs(best_count - target) && n < best_count)) {
      best_body = body;
      best_count = n;
    }
  };
  // Coarse: move by whole words using the measured rate (converges in a few calls).
  for (int iter = 0; iter < 12; ++iter) {
    std::string body = body_with(words);
    auto n = count(p, body + tail);
    if (!n) return std::unexpected(n.error());
    consider(body, *n);
    const int64_t diff = target - *n;
    if (diff == 0) break;
    double step = static_cast<double>(diff) / tokens_per_word_;
    long delta = static_cast<long>(step > 0 ? std::floor(step) : std::ceil(step));
    if (delta == 0) break;  // within one word: refine below
    words = static_cast<size_t>(std::max<long>(0, static_cast<long>(words) + delta));
  }
  // Fine: a word can be several tokens (byte-level vocabularies, rare words). Try small edits
  // and keep the first that gets closer, until exact or nothing helps.
  for (int iter = 0; iter < 32 && best_count != target; ++iter) {
    std::vector<std::string> candidates;
    if (best_count < target) {
      candidates = {best_body + "a", best_body + " a"};
    } else {
      if (best_body.size() > head.size() + 1) candidates.push_back(best_body.substr(0, best_body.size() - 1));
      size_t space = best_body.rfind(' ');
      if (space != std::string::npos && space > head.size()) candidates.push_back(best_body.substr(0, space));
    }
    bool improved = false;
    for (const auto& body : candidates) {
      auto n = count(p, body + tail);
      if (!n) return std::unexpected(n.error());
      if (std::llabs(*n - target) < std::llabs(best_count - target)) {
        best_body = body;
        best_count = *n;
        improved = true;
        break;
      }
    }
    if (!improved) break;
  }
  p.text = std::move(best_body) + tail;
  p.counted_tokens = best_count;
  return p;
}

}  // namespace sm
