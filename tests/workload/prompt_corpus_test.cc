// Prompt sources (docs/METRICS.md, "Prompt sources"): the built-in corpora, a corpus's pieces,
// and prompts cut from a corpus to the exact token count, byte for byte a stretch of it.
#include "workload/prompt_corpus.h"

#include <gtest/gtest.h>

#include "workload/prompt_builder.h"

namespace sm {
namespace {

// Each byte is a token, plus one (BOS).
class ByteCounter final : public TokenCounter {
 public:
  Result<int64_t> count(const std::string& text) override { return static_cast<int64_t>(text.size()) + 1; }
  bool exact() const override { return true; }
};

std::shared_ptr<const PromptCorpus> corpus_of(std::string text) {
  auto c = std::make_shared<PromptCorpus>();
  c->source = "text";
  c->name = "test";
  c->text = std::move(text);
  index_corpus(*c);
  return c;
}

TEST(PromptCorpus, PiecesAreWhitespaceAndTheWordAfterIt) {
  auto c = corpus_of("alpha beta\n\n  gamma\tdelta  \n");
  EXPECT_EQ(c->piece_ends, (std::vector<uint32_t>{5, 10, 19, 25}));  // trailing whitespace is no piece
  EXPECT_EQ(c->sha256.size(), 64u);
  EXPECT_NE(corpus_of("alpha beta")->sha256, corpus_of("alpha  beta")->sha256);
}

TEST(PromptCorpus, TheBuiltInCorporaAreShippedWithTheirOrigin) {
  auto text = builtin_corpus("text");
  ASSERT_TRUE(text.has_value()) << text.error().message;
  EXPECT_EQ((*text)->source, "text");
  EXPECT_EQ((*text)->licence, "public domain");
  EXPECT_NE((*text)->name.find("News from Nowhere"), std::string::npos);
  EXPECT_GT((*text)->text.size(), 400'000u);  // about 95K tokens before it wraps
  EXPECT_NE((*text)->text.find("CHAPTER I: DISCUSSION AND BED"), std::string::npos);
  EXPECT_EQ((*text)->text.find("Gutenberg"), std::string::npos);  // the header and licence were removed
  auto code = builtin_corpus("code");
  ASSERT_TRUE(code.has_value()) << code.error().message;
  EXPECT_GT((*code)->text.size(), 300'000u);
  EXPECT_LE((*code)->text.size(), 610'000u);
  EXPECT_EQ((*code)->text.rfind("// File: src/", 0), 0u);
  EXPECT_NE((*code)->text.find("namespace sm"), std::string::npos);
  EXPECT_NE((*text)->sha256, (*code)->sha256);
  auto other = builtin_corpus("poems");
  ASSERT_FALSE(other.has_value());
  EXPECT_NE(other.error().message.find("random, text or code"), std::string::npos);
  EXPECT_TRUE(is_builtin_prompt_source("random"));
  EXPECT_FALSE(is_builtin_prompt_source("dataset"));
}

TEST(PromptCorpus, APromptIsAStretchOfTheCorpusAtTheExactLength) {
  ByteCounter counter;
  auto text = builtin_corpus("text");
  ASSERT_TRUE(text.has_value());
  PromptBuilder b(counter, 42, *text);
  const std::string head = "0123456789abcdef speedmatrix decode 4096:";
  for (int64_t target : {64, 1000, 4096, 20000}) {
    auto p = b.build(target, head);
    ASSERT_TRUE(p.has_value()) << p.error().message;
    EXPECT_EQ(p->counted_tokens, target);
    ASSERT_EQ(p->text.rfind(head + "\n", 0), 0u);
    // What follows the head is the novel's own text (the last few bytes may be the fine edit).
    const std::string body = p->text.substr(head.size() + 1, static_cast<size_t>(target) / 2);
    EXPECT_NE((*text)->text.find(body), std::string::npos) << body.substr(0, 80);
  }
  // Another seed starts elsewhere in the corpus, at the start of a line.
  PromptBuilder other(counter, 7, *text);
  auto a = b.build(500, head), o = other.build(500, head);
  ASSERT_TRUE(a && o);
  EXPECT_NE(a->text, o->text);
  const std::string start = o->text.substr(head.size() + 1, 40);
  const size_t at = (*text)->text.find(start);
  ASSERT_NE(at, std::string::npos);
  EXPECT_TRUE(at == 0 || (*text)->text[at - 1] == '\n');
}

TEST(PromptCorpus, ACorpusShorterThanThePromptWrapsWithABlankLine) {
  ByteCounter counter;
  PromptBuilder b(counter, 1, corpus_of("one two three four five"));
  auto p = b.build(120, "head:");
  ASSERT_TRUE(p.has_value()) << p.error().message;
  EXPECT_EQ(p->counted_tokens, 120);
  EXPECT_NE(p->text.find("five\n\none two"), std::string::npos) << p->text;
}

TEST(PromptCorpus, NoCorpusIsRandomWordsAsBefore) {
  ByteCounter counter;
  PromptBuilder words(counter, 42), with_null(counter, 42, nullptr);
  auto a = words.build(300, "h:"), b = with_null.build(300, "h:");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->text, b->text);
  EXPECT_EQ(a->text.rfind("h: ", 0), 0u);
}

}  // namespace
}  // namespace sm
