#pragma once
// The words the simulated model "generates". Output is deterministic: token i of a request is
// word mix(seed, i) mod kSize (a SplitMix64 step: no period, so the text does not loop and the
// output checks, docs/METRICS.md, see varied text), with a leading space, so the text re-tokenizes to one token per
// generated token under SimTokenizer's rule. A few words need JSON escaping on purpose, so the
// stream path is exercised on quotes, backslashes and UTF-8.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sm::sim {

class OutputVocabulary {
 public:
  static constexpr int32_t kSize = 64;  ///< number of distinct output words

  /// Builds the word table and its escaped forms once. Thread-safe after construction.
  OutputVocabulary();
  /// The raw text of output token `index` of a request with `seed` (e.g. " the").
  std::string_view text(uint64_t seed, int64_t index) const { return words_[slot(seed, index)]; }
  /// The same text escaped for the inside of a JSON string.
  std::string_view escaped(uint64_t seed, int64_t index) const { return escaped_[slot(seed, index)]; }
  /// The token id of that word (SimTokenizer::piece_id of the word without its space).
  int32_t id(uint64_t seed, int64_t index) const { return ids_[slot(seed, index)]; }
  /// The word whose id is `id`, or empty when the id is not an output word.
  std::string_view text_of_id(int32_t id) const;
  /// The process-wide instance.
  static const OutputVocabulary& instance();

 private:
  static size_t slot(uint64_t seed, int64_t index) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<uint64_t>(index) + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<size_t>((z ^ (z >> 31)) % kSize);
  }
  std::array<std::string, kSize> words_;    ///< " word" texts
  std::array<std::string, kSize> escaped_;  ///< words_ escaped for JSON strings
  std::array<int32_t, kSize> ids_{};        ///< token ids of words_
};

}  // namespace sm::sim
