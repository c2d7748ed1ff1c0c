#include "engines/completion_response.h"

#include <gtest/gtest.h>

namespace sm {
namespace {

TEST(CompletionResponse, ReadsCompletionsAndChatAnswers) {
  auto c = parse_completion_response(
      R"({"id":"x","choices":[{"index":0,"text":" The passkey is 1.","finish_reason":"stop"}],)"
      R"("usage":{"prompt_tokens":4096,"completion_tokens":5}})");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->text, " The passkey is 1.");
  EXPECT_EQ(c->finish_reason, "stop");
  EXPECT_EQ(c->prompt_tokens, 4096);
  auto chat = parse_completion_response(
      R"({"choices":[{"index":0,"message":{"role":"assistant","content":"7"},"finish_reason":"length"}]})");
  ASSERT_TRUE(chat.has_value());
  EXPECT_EQ(chat->text, "7");
  EXPECT_EQ(chat->finish_reason, "length");
  EXPECT_FALSE(chat->prompt_tokens.has_value());
  auto null_content = parse_completion_response(R"({"choices":[{"message":{"content":null},"finish_reason":null}]})");
  ASSERT_TRUE(null_content.has_value());
  EXPECT_EQ(null_content->text, "");
  EXPECT_EQ(null_content->finish_reason, "");
}

TEST(CompletionResponse, RefusesErrorsAndOtherBodies) {
  auto e = parse_completion_response(R"({"error":{"message":"prompt too long","code":400}})");
  ASSERT_FALSE(e.has_value());
  EXPECT_NE(e.error().message.find("prompt too long"), std::string::npos);
  EXPECT_FALSE(parse_completion_response("not json").has_value());
  EXPECT_FALSE(parse_completion_response(R"({"choices":[]})").has_value());
  EXPECT_FALSE(parse_completion_response("[1]").has_value());
}

}  // namespace
}  // namespace sm
