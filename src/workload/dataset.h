#pragma once
// --dataset FILE: a user's prompts as a corpus (docs/METRICS.md, "Prompt sources"). Reads the
// formats people already have: a ShareGPT-style JSON array of conversations, a JSON array of
// prompts, and JSON Lines of prompts or of conversations. The user turns are kept, in file order,
// joined by blank lines; prompts of the matrix's exact lengths are cut from them like from any
// corpus, so every cell still measures the context it names.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.h"
#include "workload/prompt_corpus.h"

namespace sm {

/// Text kept from a dataset before the rest is left unread: ample for the longest context.
inline constexpr size_t kDatasetTextLimitBytes = 16u << 20;

/// The user text of every record in `content` (the file's bytes; `name` is what errors and the
/// corpus call it). Each record may be a string, or an object with a string "prompt", "text",
/// "input", "question" or "instruction", or with "conversations" (ShareGPT: {"from": "human",
/// "value": ...}) or "messages" ({"role": "user", "content": text or parts}).
Result<std::shared_ptr<const PromptCorpus>> parse_dataset(std::string_view content, const std::string& name);

/// parse_dataset on a file's content; the corpus is named by the file's name (no directories).
Result<std::shared_ptr<const PromptCorpus>> load_dataset(const std::string& path);

}  // namespace sm
