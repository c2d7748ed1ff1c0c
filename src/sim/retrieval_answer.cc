#include "sim/retrieval_answer.h"

#include <fmt/format.h>

#include "sim/sim_tokenizer.h"
#include "workload/retrieval_probe.h"

namespace sm::sim {

namespace {

// The question ends the prompt: only the last segment's tail is searched for it first, so
// ordinary prompts cost one short search.
constexpr size_t kQuestionTailBytes = 512;

}  // namespace

std::string retrieval_answer(const std::vector<PromptSegment>& segments, int64_t prompt_tokens,
                             int64_t attention_window, uint64_t seed) {
  if (segments.empty()) return {};
  const std::string_view last = segments.back().text;
  if (!asks_retrieval_question(last.substr(last.size() > kQuestionTailBytes ? last.size() - kQuestionTailBytes : 0)))
    return {};
  const int64_t first_visible = attention_window > 0 && prompt_tokens > attention_window ? prompt_tokens - attention_window : 0;
  auto visible = [&](const PromptSegment& s) {
    return s.text.substr(SimTokenizer::token_offset(s.text, first_visible - s.first_token));
  };
  if (!asks_retrieval_question(visible(segments.back()))) return {};  // the window is shorter than the question
  for (const auto& s : segments)
    if (auto needle = find_needle(visible(s)))
      return fmt::format(" The passkey is {}. The vault is in {}.", needle->passkey, needle->city);
  // Not seen: a made-up passkey of the same shape.
  return fmt::format(" The passkey is {}. The vault is in Paris.", 1'000'000 + seed % 9'000'000);
}

}  // namespace sm::sim
