#include "sim/retrieval_answer.h"

#include <gtest/gtest.h>

#include "sim/request_parser.h"
#include "sim/sim_tokenizer.h"
#include "workload/retrieval_probe.h"

namespace sm::sim {
namespace {

// A prompt of `before` filler words, the needle, `after` filler words and the question.
std::string retrieval_prompt(int before, int after) {
  std::string text = "head:";
  for (int i = 0; i < before; ++i) text += " w";
  text += needle_text(Needle{"4821937", "Lisbon"});
  for (int i = 0; i < after; ++i) text += " w";
  return text + retrieval_question_text();
}

std::string answer_to(const std::string& prompt, int64_t window) {
  const int64_t tokens = SimTokenizer::count(prompt);
  return retrieval_answer({{prompt, 0}}, tokens, window, 99);
}

TEST(SimTokenizer, TokenOffsetFindsWhereATokenStarts) {
  EXPECT_EQ(SimTokenizer::token_offset("a bb ccc", 0), 0u);
  EXPECT_EQ(SimTokenizer::token_offset("a bb ccc", 1), 2u);
  EXPECT_EQ(SimTokenizer::token_offset("a bb ccc", 2), 5u);
  EXPECT_EQ(SimTokenizer::token_offset("a bb ccc", 3), 8u);  // past the end
  const std::string long_word(40, 'x');                       // three 16-byte pieces
  EXPECT_EQ(SimTokenizer::token_offset(long_word, 2), 32u);
  EXPECT_EQ(SimTokenizer::token_offset("  a", -3), 0u);
}

TEST(SimRetrieval, NeedleInsideTheWindowIsAnswered) {
  const std::string prompt = retrieval_prompt(3000, 500);
  EXPECT_EQ(answer_to(prompt, 0), " The passkey is 4821937. The vault is in Lisbon.");  // sees everything
  EXPECT_EQ(answer_to(prompt, 1000), " The passkey is 4821937. The vault is in Lisbon.");
  const std::string answer = answer_to(prompt, 1000);
  EXPECT_EQ(score_retrieval_answer(Needle{"4821937", "Lisbon"}, {answer, "stop", std::nullopt}, 1).verdict,
            RetrievalVerdict::Exact);
}

TEST(SimRetrieval, NeedleBeforeTheWindowGetsAWrongAnswer) {
  const std::string prompt = retrieval_prompt(3000, 500);
  const std::string answer = answer_to(prompt, 300);
  EXPECT_TRUE(answer.starts_with(" The passkey is ")) << answer;
  EXPECT_EQ(answer.find("4821937"), std::string::npos);
  EXPECT_EQ(answer.find("Lisbon"), std::string::npos);
  EXPECT_EQ(score_retrieval_answer(Needle{"4821937", "Lisbon"}, {answer, "stop", std::nullopt}, 1).verdict,
            RetrievalVerdict::Wrong);
  // A window that ends inside the needle does not see a whole one either.
  const int64_t tokens = SimTokenizer::count(prompt);
  const size_t at = prompt.find("4821937");
  const int64_t from_needle_digits = tokens - SimTokenizer::count(prompt.substr(0, at));
  EXPECT_EQ(answer_to(prompt, from_needle_digits).find("4821937"), std::string::npos);
}

TEST(SimRetrieval, OnlyTheQuestionGetsAnAnswer) {
  EXPECT_EQ(answer_to("head: w w w" + needle_text(Needle{"4821937", "Lisbon"}), 0), "");
  // A window shorter than the question does not see it.
  EXPECT_EQ(answer_to(retrieval_prompt(10, 10), 3), "");
}

TEST(SimRetrieval, TheParserAnswersThroughItsWindowAndEndsTheAnswer) {
  ModelLimits l;
  l.model_id = "m";
  l.max_model_len = 100000;
  l.natural_length_min = 256;
  l.natural_length_max = 2048;
  RequestParser p;
  const std::string prompt = retrieval_prompt(3000, 500);
  const std::string body = R"({"prompt":")" + prompt.substr(0, prompt.find('\n')) + R"(\n\nQuestion: )" +
                           std::string(kRetrievalQuestion) + R"(\nAnswer:","max_tokens":48})";
  auto all = p.parse_generation(body, false, l);
  ASSERT_TRUE(all.has_value()) << all.error().message;
  EXPECT_EQ(all->answer, " The passkey is 4821937. The vault is in Lisbon.");
  EXPECT_EQ(all->spec.natural_length, SimTokenizer::count(all->answer) + 1);  // then EOS
  l.attention_window = 300;
  auto windowed = p.parse_generation(body, false, l);
  ASSERT_TRUE(windowed.has_value());
  EXPECT_EQ(windowed->answer.find("4821937"), std::string::npos);
  // Chat: the user message is read through the same window (the template's tokens count).
  l.attention_window = 1000;
  const std::string chat = R"({"messages":[{"role":"user","content":")" + prompt.substr(0, prompt.find('\n')) +
                           R"(\n\nQuestion: )" + std::string(kRetrievalQuestion) + R"(\nAnswer:"}],"max_tokens":48})";
  auto answered = p.parse_generation(chat, true, l);
  ASSERT_TRUE(answered.has_value()) << answered.error().message;
  EXPECT_EQ(answered->answer, " The passkey is 4821937. The vault is in Lisbon.");
  auto plain = p.parse_generation(R"({"prompt":"a b c","max_tokens":4})", false, l);
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->answer, "");
}

}  // namespace
}  // namespace sm::sim
