#include "sim/sim_tokenizer.h"

#include <gtest/gtest.h>

#include "sim/output_vocabulary.h"

namespace sm::sim {
namespace {

TEST(SimTokenizer, OneTokenPerWordWhitespaceIsFree) {
  EXPECT_EQ(SimTokenizer::count(""), 0);
  EXPECT_EQ(SimTokenizer::count("   \n\t "), 0);
  EXPECT_EQ(SimTokenizer::count("hello"), 1);
  EXPECT_EQ(SimTokenizer::count("hello world"), 2);
  EXPECT_EQ(SimTokenizer::count("  hello \n\n world\t!  "), 3);
}

TEST(SimTokenizer, LongWordsAreCutIntoSixteenBytePieces) {
  EXPECT_EQ(SimTokenizer::count(std::string(16, 'a')), 1);
  EXPECT_EQ(SimTokenizer::count(std::string(17, 'a')), 2);
  EXPECT_EQ(SimTokenizer::count(std::string(48, 'a')), 3);
  EXPECT_EQ(SimTokenizer::count("café"), 1) << "bytes, not characters: 5 bytes";
}

TEST(SimTokenizer, IdsAreDeterministicAndInRange) {
  std::vector<int32_t> a, b;
  SimTokenizer::encode("the quick brown fox the", a);
  SimTokenizer::encode("the quick brown fox the", b);
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0], a[4]);
  EXPECT_NE(a[0], a[1]);
  for (int32_t id : a) {
    EXPECT_GE(id, SimTokenizer::kFirstTextId);
    EXPECT_LT(id, SimTokenizer::kVocabSize);
  }
}

TEST(SimTokenizer, ChatTemplateAddsAFixedOverhead) {
  std::vector<int32_t> t;
  SimTokenizer::begin_message("user", t);
  SimTokenizer::encode("hello world", t);
  SimTokenizer::end_message(t);
  SimTokenizer::generation_prompt(t);
  EXPECT_EQ(static_cast<int32_t>(t.size()),
            2 + SimTokenizer::kChatTokensPerMessage + SimTokenizer::kChatGenerationPromptTokens);
  EXPECT_EQ(t.front(), SimTokenizer::kImStartId);
}

TEST(OutputVocabulary, GeneratedTextReTokenizesToOneTokenPerToken) {
  const auto& v = OutputVocabulary::instance();
  std::string text;
  for (int i = 0; i < OutputVocabulary::kSize; ++i) {
    text += v.text(7, i);
    std::string_view w = v.text(7, i);
    EXPECT_EQ(v.id(7, i), SimTokenizer::piece_id(w.substr(1)));
    EXPECT_EQ(v.text_of_id(v.id(7, i)).empty(), false);
  }
  EXPECT_EQ(SimTokenizer::count(text), OutputVocabulary::kSize);
}

}  // namespace
}  // namespace sm::sim
