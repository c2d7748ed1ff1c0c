#include "workload/retrieval_probe.h"

#include <gtest/gtest.h>

#include "sim/sim_tokenizer.h"

namespace sm {
namespace {

// Counts as the simulated engine does (whitespace words, 16-byte pieces), plus a BOS.
class SimRuleCounter final : public TokenCounter {
 public:
  Result<int64_t> count(const std::string& text) override { return sim::SimTokenizer::count(text) + 1; }
  bool exact() const override { return true; }
};

Needle fixed_needle() { return Needle{"4821937", "Lisbon"}; }

TEST(RetrievalProbe, NeedleIsSevenDigitsAndACityFromTheSeed) {
  Rng a(1), b(1), c(2);
  const Needle x = make_needle(a), y = make_needle(b), z = make_needle(c);
  EXPECT_EQ(x.passkey, y.passkey);
  EXPECT_EQ(x.city, y.city);
  EXPECT_NE(x.passkey, z.passkey);
  EXPECT_EQ(x.passkey.size(), 7u);
  EXPECT_NE(x.passkey[0], '0');
  EXPECT_FALSE(x.city.empty());
}

TEST(RetrievalProbe, TheNeedleTextReadsBack) {
  const std::string text = "filler words" + needle_text(fixed_needle()) + " more filler";
  auto found = find_needle(text);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->passkey, "4821937");
  EXPECT_EQ(found->city, "Lisbon");
  // Cut anywhere inside, it is not a whole needle.
  const std::string cut = needle_text(fixed_needle()).substr(8);
  EXPECT_FALSE(find_needle(cut).has_value());
  EXPECT_FALSE(find_needle("The passkey is 123").has_value());
  EXPECT_TRUE(asks_retrieval_question(retrieval_question_text()));
  EXPECT_FALSE(asks_retrieval_question("What is the passkey?"));
}

TEST(RetrievalProbe, PromptHasTheContextsLengthAndTheNeedleAtItsDepth) {
  SimRuleCounter counter;
  PromptBuilder builder(counter, 11);
  for (int64_t context : {1024, 4096, 32768}) {
    auto p = build_retrieval_prompt(builder, context, kNeedleDepth, fixed_needle(), "0123abcd speedmatrix retrieval:");
    ASSERT_TRUE(p.has_value()) << p.error().message;
    EXPECT_EQ(p->tokens, context);
    EXPECT_EQ(sim::SimTokenizer::count(p->text) + 1, context);  // exact, by the counter's own rule
    EXPECT_TRUE(p->text.starts_with("0123abcd speedmatrix retrieval:"));
    EXPECT_TRUE(p->text.ends_with(retrieval_question_text()));
    // The needle starts where the prompt's first quarter ends.
    const size_t at = p->text.find(needle_text(fixed_needle()));
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(sim::SimTokenizer::count(p->text.substr(0, at)) + 1, p->tokens_before_needle);
    EXPECT_NEAR(p->depth, 0.25, 0.01) << context;
    EXPECT_EQ(p->text.find(needle_text(fixed_needle()), at + 1), std::string::npos);  // one needle
  }
}

TEST(RetrievalProbe, BuilderTailEndsThePrompt) {
  SimRuleCounter counter;
  PromptBuilder builder(counter, 3);
  auto p = builder.build(500, "head:", "\nthe tail");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->counted_tokens, 500);
  EXPECT_TRUE(p->text.starts_with("head:"));
  EXPECT_TRUE(p->text.ends_with("\nthe tail"));
  auto tiny = builder.build(2, "head:", " tail");  // at or below head + tail: both alone
  ASSERT_TRUE(tiny.has_value());
  EXPECT_EQ(tiny->text, "head: tail");
}

RetrievalVerdict verdict_of(const std::string& text, std::string finish = "stop",
                            std::optional<int64_t> prompt_tokens = 4096) {
  return score_retrieval_answer(fixed_needle(), RetrievalAnswer{text, std::move(finish), prompt_tokens}, 4096).verdict;
}

TEST(RetrievalProbe, ScoresEachVerdict) {
  EXPECT_EQ(verdict_of(" The passkey is 4821937. The vault is in Lisbon."), RetrievalVerdict::Exact);
  EXPECT_EQ(verdict_of("4,821,937"), RetrievalVerdict::Exact);               // separators between digits
  EXPECT_EQ(verdict_of("Sure! 12 and then 4821937"), RetrievalVerdict::Exact);
  EXPECT_EQ(verdict_of("The passkey is 4821935."), RetrievalVerdict::NearMiss);  // one digit changed
  EXPECT_EQ(verdict_of("The passkey is 4829137."), RetrievalVerdict::NearMiss);  // two neighbours swapped
  EXPECT_EQ(verdict_of("The passkey is 482193."), RetrievalVerdict::NearMiss);   // one dropped
  EXPECT_EQ(verdict_of("The passkey is 4800037."), RetrievalVerdict::Wrong);     // three changed
  EXPECT_EQ(verdict_of("The passkey is 5190462."), RetrievalVerdict::Wrong);
  EXPECT_EQ(verdict_of("I do not know."), RetrievalVerdict::Wrong);
  EXPECT_EQ(verdict_of("   \n"), RetrievalVerdict::Truncated);                    // said nothing
  EXPECT_EQ(verdict_of("Let me think about the", "length"), RetrievalVerdict::Truncated);  // cut before a number
  // The server counted far fewer prompt tokens than were sent: it cut the prompt, whatever it says.
  EXPECT_EQ(verdict_of("The passkey is 4821937.", "stop", 2048), RetrievalVerdict::Truncated);
  EXPECT_EQ(verdict_of("The passkey is 4821937.", "stop", 3800), RetrievalVerdict::Exact);  // above 90 %
  EXPECT_EQ(verdict_of("The passkey is 4821937.", "stop", std::nullopt), RetrievalVerdict::Exact);
}

TEST(RetrievalProbe, FactFoundNamesTheCityAsAWord) {
  auto score = [](const std::string& text) {
    return score_retrieval_answer(fixed_needle(), RetrievalAnswer{text, "stop", std::nullopt}, 4096);
  };
  EXPECT_TRUE(score("4821937, in LISBON").fact_found);
  EXPECT_FALSE(score("4821937, in Lisbonia").fact_found);
  EXPECT_FALSE(score("4821937").fact_found);
}

TEST(RetrievalProbe, EditDistanceCountsATranspositionOnce) {
  EXPECT_EQ(digit_edit_distance("1234567", "1234567"), 0);
  EXPECT_EQ(digit_edit_distance("1234567", "1243567"), 1);
  EXPECT_EQ(digit_edit_distance("1234567", "1234568"), 1);
  EXPECT_EQ(digit_edit_distance("1234567", "123456"), 1);
  EXPECT_EQ(digit_edit_distance("1234567", "2143567"), 2);
  EXPECT_EQ(digit_edit_distance("1234567", "7654321"), 6);
}

TEST(RetrievalProbe, ExcerptIsBoundedAndKeepsCharactersWhole) {
  EXPECT_EQ(answer_excerpt("short"), "short");
  const std::string long_text(500, 'x');
  EXPECT_EQ(answer_excerpt(long_text).size(), kRetrievalExcerptBytes);
  // "é" is two bytes: a cut through it backs off to before it.
  const std::string accents = std::string(199, 'a') + "é" + "tail";
  EXPECT_EQ(answer_excerpt(accents), std::string(199, 'a'));
  // Control characters and invalid bytes come out escaped (valid UTF-8, one line).
  EXPECT_EQ(answer_excerpt("a\nb\x1b"), "a\\x0ab\\x1b");
  const std::string bad = answer_excerpt(std::string("ok \xff"));
  EXPECT_EQ(bad.find('\xff'), std::string::npos);
}

}  // namespace
}  // namespace sm
