#pragma once
// The long-context retrieval check's prompt and its scoring (docs/METRICS.md, "Long-context
// retrieval check"). Pure: the prompt is built through a PromptBuilder (so it has the context's
// exact length by the server's own count) and the answer is scored from its text alone.
//
// The prompt, in order:
//   head (unique, as every prompt's) + filler words up to `depth` of the context
//   + the needle: " The passkey is 4821937. The vault is in Lisbon. Remember both."
//   + filler words up to the context's length
//   + the question: "\n\nQuestion: What is the passkey, and in which city is the vault?\nAnswer:"
// The passkey is seven digits (the first not 0) and the city one of kRetrievalCities, both from
// the run's seeded Rng. The question's text is fixed: the built-in simulated engine recognises
// it (sim/retrieval_answer.h) and answers it from what its attention window sees.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/rng.h"
#include "result/result.h"
#include "workload/prompt_builder.h"

namespace sm {

/// Where the needle starts, as a fraction of the prompt: a quarter of the way in, so a server
/// that keeps less than the last three quarters of a prompt (a sliding window, a context cut to
/// the model's trained length) cannot answer.
inline constexpr double kNeedleDepth = 0.25;
/// Contexts shorter than this are not checked (context 0 has no room for a needle; a short
/// context says nothing about reading a long one).
inline constexpr int64_t kMinRetrievalContext = 1024;
/// Output tokens the check asks for: room for a one-sentence answer, and little else.
inline constexpr int64_t kRetrievalMaxTokens = 48;
/// The prompt's question, verbatim (the simulated engine looks for it).
inline constexpr std::string_view kRetrievalQuestion = "What is the passkey, and in which city is the vault?";
/// The usage.prompt_tokens below this share of the prompt's tokens means the server cut it.
inline constexpr double kTruncatedPromptShare = 0.9;
/// Bytes of the answer a result keeps.
inline constexpr size_t kRetrievalExcerptBytes = 200;

/// What the needle says.
struct Needle {
  std::string passkey;  ///< seven decimal digits, the first not 0
  std::string city;     ///< one word, from the fixed city list
};

/// A needle drawn from `rng`.
Needle make_needle(Rng& rng);
/// The needle's sentences, with a leading space: " The passkey is 4821937. The vault is in
/// Lisbon. Remember both."
std::string needle_text(const Needle& needle);
/// The prompt's end: "\n\nQuestion: <kRetrievalQuestion>\nAnswer:".
std::string retrieval_question_text();
/// The needle in `text` (its passkey and city), if a whole one is there.
std::optional<Needle> find_needle(std::string_view text);
/// True when `text` holds the retrieval question.
bool asks_retrieval_question(std::string_view text);

/// A built check prompt.
struct RetrievalPrompt {
  std::string text;             ///< the prompt
  int64_t tokens = 0;           ///< its tokens by the builder's counter (== the context when exact)
  int64_t tokens_before_needle = 0;  ///< tokens before the needle (head and filler, counted the same way)
  double depth = 0;             ///< tokens_before_needle ÷ tokens: where the needle really starts
  Needle needle;
};

/// A prompt of `context` tokens (by `builder`'s counter) starting with `head`, the needle
/// placed at `depth` of it, ending with the question.
Result<RetrievalPrompt> build_retrieval_prompt(PromptBuilder& builder, int64_t context, double depth,
                                               const Needle& needle, const std::string& head);

/// What the server answered.
struct RetrievalAnswer {
  std::string text;                      ///< the answer's text (choices[0].text or message.content)
  std::string finish_reason;             ///< "stop", "length", ...; empty when none was given
  std::optional<int64_t> prompt_tokens;  ///< usage.prompt_tokens
};

/// A scored answer.
struct RetrievalScore {
  RetrievalVerdict verdict = RetrievalVerdict::Wrong;
  bool fact_found = false;  ///< the answer names the needle's city (case-insensitive)
};

/// Scores `answer` to a prompt of `sent_tokens` tokens hiding `needle`:
/// - truncated: usage.prompt_tokens < kTruncatedPromptShare × sent_tokens (the server cut the
///   prompt), or the answer is blank, or it holds no digit and finish_reason is "length";
/// - exact: a number in the answer (digits, with "," or "-" allowed between them) is the passkey;
/// - near_miss: a number at Damerau-Levenshtein distance 1 or 2 from it (a digit changed, added,
///   dropped, or two neighbours swapped count one each);
/// - wrong: anything else.
RetrievalScore score_retrieval_answer(const Needle& needle, const RetrievalAnswer& answer, int64_t sent_tokens);

/// Edit distance with adjacent transpositions (optimal string alignment).
int64_t digit_edit_distance(std::string_view a, std::string_view b);

/// The first `max_bytes` of `text` cut at a UTF-8 character boundary, with control characters and
/// bytes that are not UTF-8 escaped (core/text.h escape_controls): safe for JSON and a terminal.
std::string answer_excerpt(std::string_view text, size_t max_bytes = kRetrievalExcerptBytes);

}  // namespace sm
