#pragma once
// Prompts of an exact token length: a unique head (the nonce, so no prefix cache can hold the
// prompt before we send it) followed by filler grown or trimmed until the server's own count hits
// the target. The filler is seeded random common words, or a stretch of a corpus (built-in text or
// code, a dataset: workload/prompt_corpus.h) from a seeded starting line, wrapping at its end.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "workload/prompt_corpus.h"
#include "workload/token_counter.h"

namespace sm {

struct BuiltPrompt {
  std::string text;            ///< the prompt
  int64_t target_tokens = 0;   ///< what was asked for
  int64_t counted_tokens = 0;  ///< what the counter says it is (== target when exact and found)
  int count_calls = 0;         ///< tokenizer calls it took
};

class PromptBuilder {
 public:
  /// `counter` must outlive the builder. `seed` fixes the filler words, or where in `corpus` the
  /// filler starts; no corpus: random common words.
  PromptBuilder(TokenCounter& counter, uint64_t seed, std::shared_ptr<const PromptCorpus> corpus = nullptr);

  /// A prompt of `target_tokens` tokens starting with `head` and ending with `tail` (the filler
  /// goes between them). When the target is at or below head + tail's own length, head + tail
  /// alone is returned (context 0).
  Result<BuiltPrompt> build(int64_t target_tokens, const std::string& head, const std::string& tail = {});

 private:
  const std::string& filler(size_t words);  ///< first `words` filler words or pieces, joined (cached)
  void append_piece();                      ///< the next piece of the corpus (wrapping at its end)
  Result<int64_t> count(BuiltPrompt& p, const std::string& text);

  TokenCounter& counter_;
  Rng rng_;
  std::string filler_text_;              ///< " word word word ..." grown on demand
  std::vector<size_t> filler_word_ends_; ///< end offset of each filler word in filler_text_
  double tokens_per_word_ = 0;           ///< measured on a sample, 0 until then
  std::shared_ptr<const PromptCorpus> corpus_;  ///< null: random words
  size_t next_piece_ = 0;                ///< the corpus piece filler() takes next
};

}  // namespace sm
