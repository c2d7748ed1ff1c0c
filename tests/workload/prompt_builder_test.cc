#include "workload/prompt_builder.h"

#include <gtest/gtest.h>

namespace sm {
namespace {

// A tokenizer where each character is one token (the synthetic GGUF's byte vocabulary).
class ByteCounter final : public TokenCounter {
 public:
  Result<int64_t> count(const std::string& text) override {
    ++calls;
    return static_cast<int64_t>(text.size()) + 1;  // + BOS
  }
  bool exact() const override { return true; }
  int calls = 0;
};

// Words are one token each, except long ones (two), like a BPE vocabulary.
class WordCounter final : public TokenCounter {
 public:
  Result<int64_t> count(const std::string& text) override {
    int64_t n = 0;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t start = text.find_first_not_of(' ', pos);
      if (start == std::string::npos) break;
      size_t end = text.find(' ', start);
      size_t len = (end == std::string::npos ? text.size() : end) - start;
      n += len > 5 ? 2 : 1;
      pos = start + len;
    }
    return n;
  }
  bool exact() const override { return true; }
};

TEST(PromptBuilder, ExactLengthWithByteTokens) {
  ByteCounter counter;
  PromptBuilder b(counter, 42);
  for (int64_t target : {100, 1000, 16384}) {
    auto p = b.build(target, "speedmatrix run1 context:");
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->counted_tokens, target);
    EXPECT_EQ(static_cast<int64_t>(p->text.size()) + 1, target);
    EXPECT_EQ(p->text.rfind("speedmatrix run1 context:", 0), 0u);
  }
}

TEST(PromptBuilder, ExactLengthWithWordTokens) {
  WordCounter counter;
  PromptBuilder b(counter, 7);
  for (int64_t target : {64, 999, 32768}) {
    auto p = b.build(target, "head:");
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->counted_tokens, target);
    EXPECT_LT(p->count_calls, 40);
  }
}

TEST(PromptBuilder, ContextZeroIsTheHeadAlone) {
  ByteCounter counter;
  PromptBuilder b(counter, 1);
  auto p = b.build(0, "speedmatrix x:");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->text, "speedmatrix x:");
}

TEST(PromptBuilder, SameSeedSameText) {
  ByteCounter c1, c2;
  PromptBuilder a(c1, 99), b(c2, 99);
  EXPECT_EQ(a.build(500, "h").value().text, b.build(500, "h").value().text);
}

TEST(PromptBuilder, CounterErrorsPropagate) {
  class Failing final : public TokenCounter {
   public:
    Result<int64_t> count(const std::string&) override { return fail(ErrorCode::Http, "tokenize: HTTP 500"); }
    bool exact() const override { return true; }
  } counter;
  PromptBuilder b(counter, 1);
  auto p = b.build(100, "h");
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().message.find("500"), std::string::npos);
}

}  // namespace
}  // namespace sm
