#pragma once
// How the simulated model answers the retrieval check's question (workload/retrieval_probe.h):
// it reads only what its attention window sees — the prompt's last `attention_window` tokens
// under SimTokenizer's rule (SimConfig::attention_window_tokens; 0 = all) — and
//  - when the visible text asks the question and holds the whole needle, it answers with the
//    needle's passkey and city: " The passkey is 4821937. The vault is in Lisbon.";
//  - when it asks the question but the needle lies before the window, it answers in the same
//    form with a passkey made up from the prompt's hash and a city the check never uses
//    (" ... The vault is in Paris."): plausible, and wrong;
//  - otherwise it answers nothing special (the output vocabulary's words).
// Every word of an answer is one token under SimTokenizer's rule.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sm::sim {

/// A piece of a prompt's text and the index of its first token in the whole prompt (template
/// tokens included).
struct PromptSegment {
  std::string_view text;
  int64_t first_token = 0;
};

/// The answer to a prompt of `prompt_tokens` tokens made of `segments`, or "" when the visible
/// part does not ask the retrieval question. `seed` makes up the wrong passkey.
std::string retrieval_answer(const std::vector<PromptSegment>& segments, int64_t prompt_tokens,
                             int64_t attention_window, uint64_t seed);

}  // namespace sm::sim
