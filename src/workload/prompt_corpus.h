#pragma once
// What prompts are cut from (docs/METRICS.md, "Prompt sources"): seeded random common words (the
// default), a built-in natural text, the built-in source code, or a user's dataset. A corpus is
// one text and its pieces (a run of whitespace and the word after it), so a prompt is a stretch of
// the corpus reproduced byte for byte, cut where the server's token count hits the target.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "result/result.h"

namespace sm {

/// A text prompts are cut from, with where it came from.
struct PromptCorpus {
  std::string source;   ///< "text", "code" or "dataset" (the --prompts value)
  std::string name;     ///< e.g. "News from Nowhere (William Morris, 1890)", or the dataset's file name
  std::string origin;   ///< where it came from, in words
  std::string licence;  ///< under what terms it is shipped or was given
  int64_t texts = 1;    ///< texts joined into it (a dataset's prompts)
  std::string text;     ///< the corpus, texts separated by a blank line
  std::string sha256;   ///< of `text`: two runs cut prompts from the same corpus when these match
  std::vector<uint32_t> piece_ends;  ///< end offset of each piece (whitespace + word) of `text`
};

/// A run's prompt source: its --prompts name ("random", "text", "code", "dataset") and, but for
/// random words, the corpus.
struct PromptSource {
  std::string name = "random";
  std::shared_ptr<const PromptCorpus> corpus;
};

/// Writes the source and --natural-eos into a run's settings (prompts, prompt_corpus, natural_eos).
void record_prompt_source(const PromptSource& source, bool natural_eos, RunSettings& settings);

/// Splits `text` into pieces and hashes it (fills piece_ends and sha256).
void index_corpus(PromptCorpus& corpus);

/// The names --prompts accepts: "random", "text", "code".
bool is_builtin_prompt_source(std::string_view name);

/// The built-in corpus "text" or "code" (an error for any other name).
Result<std::shared_ptr<const PromptCorpus>> builtin_corpus(std::string_view name);

}  // namespace sm
