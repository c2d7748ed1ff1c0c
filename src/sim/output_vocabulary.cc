#include "sim/output_vocabulary.h"

#include "sim/json_text.h"
#include "sim/sim_tokenizer.h"

namespace sm::sim {

namespace {

// 64 words, none longer than SimTokenizer::kPieceBytes; a few need JSON escaping on purpose.
constexpr std::string_view kWords[OutputVocabulary::kSize] = {
    "the",    "simulated", "engine", "streams",  "tokens", "at",       "the",     "rate",
    "that",   "the",       "model",  "predicts", "for",    "this",     "GPU",     "and",
    "each",   "step",      "of",     "its",      "batch",  "decodes",  "one",     "token",
    "per",    "running",   "request","while",    "prompt", "chunks",   "fill",    "the",
    "paged",  "KV",        "cache;", "blocks",   "that",   "match",    "a",       "cached",
    "prefix", "are",       "shared", "\"quoted\"", "C:\\path", "café",  "naïve",   "—",
    "so",     "a",         "client", "sees",     "what",   "a",        "real",    "server",
    "would",  "do,",       "minus",  "the",      "GPU.",   "<b>",      "{x}",     "ok",
};

}  // namespace

OutputVocabulary::OutputVocabulary() {
  for (int32_t i = 0; i < kSize; ++i) {
    // Built in a fresh string: assigning " " then appending trips GCC 12's -Wrestrict (a false
    // positive in the inlined memcpy).
    std::string word(1, ' ');
    word.append(kWords[i]);
    words_[i] = std::move(word);
    append_json_escaped(escaped_[i], words_[i]);
    ids_[i] = SimTokenizer::piece_id(kWords[i]);
  }
}

std::string_view OutputVocabulary::text_of_id(int32_t id) const {
  for (int32_t i = 0; i < kSize; ++i)
    if (ids_[i] == id) return words_[i];
  return {};
}

const OutputVocabulary& OutputVocabulary::instance() {
  static const OutputVocabulary vocabulary;
  return vocabulary;
}

}  // namespace sm::sim
