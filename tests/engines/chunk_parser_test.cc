#include "engines/chunk_parser.h"

#include <gtest/gtest.h>

namespace sm {
namespace {

ChunkInfo parse(std::string_view s) {
  ChunkParser p;
  ChunkInfo info;
  p.parse(s, info);
  return info;
}

TEST(ChunkParser, CompletionTextChunk) {
  auto c = parse(R"({"id":"x","object":"text_completion","choices":[{"index":0,"text":"Hello","finish_reason":null}]})");
  EXPECT_EQ(c.kind, ChunkInfo::Kind::Data);
  EXPECT_TRUE(c.has_choices);
  EXPECT_TRUE(c.has_token);
  EXPECT_EQ(c.finish, FinishReason::None);
}

TEST(ChunkParser, ChatRoleOnlyChunkIsNotAToken) {
  auto c = parse(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})");
  EXPECT_TRUE(c.has_choices);
  EXPECT_FALSE(c.has_token);
}

TEST(ChunkParser, ChatContentAndReasoning) {
  EXPECT_TRUE(parse(R"({"choices":[{"delta":{"content":"a"}}]})").has_token);
  EXPECT_TRUE(parse(R"({"choices":[{"delta":{"reasoning_content":"a"}}]})").has_token);
}

TEST(ChunkParser, TextAndReasoningAreKeptUnescaped) {
  ChunkParser p;
  ChunkInfo c;
  p.parse(R"({"choices":[{"index":0,"text":"a\"b\u00e9\n"}]})", c);
  EXPECT_EQ(c.text, "a\"b\u00e9\n");
  EXPECT_TRUE(c.reasoning.empty());
  p.parse(R"({"choices":[{"delta":{"reasoning_content":"think","content":"say"}}]})", c);
  EXPECT_EQ(c.text, "say");
  EXPECT_EQ(c.reasoning, "think");
  p.parse(R"({"choices":[{"delta":{"role":"assistant"}}]})", c);
  EXPECT_TRUE(c.text.empty());
  // Only choice 0 is read: a second choice's text is not this stream's.
  p.parse(R"({"choices":[{"text":"one"},{"text":"two"}]})", c);
  EXPECT_EQ(c.text, "one");
}

TEST(ChunkParser, UsageChunkWithEmptyChoices) {
  auto c = parse(R"({"choices":[],"usage":{"prompt_tokens":16384,"completion_tokens":8192,"total_tokens":24576}})");
  EXPECT_FALSE(c.has_choices);
  EXPECT_FALSE(c.has_token);
  EXPECT_EQ(c.usage_prompt_tokens, 16384);
  EXPECT_EQ(c.usage_completion_tokens, 8192);
  EXPECT_EQ(c.usage_cached_tokens, -1);  // not said
}

TEST(ChunkParser, CachedPromptTokensFromUsageDetails) {
  // vLLM with --enable-prompt-tokens-details, SGLang, OpenAI: the prefix cache's share of the prompt.
  auto c = parse(R"({"choices":[],"usage":{"prompt_tokens":1300,"completion_tokens":8,)"
                 R"("prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":null}}})");
  EXPECT_EQ(c.usage_prompt_tokens, 1300);
  EXPECT_EQ(c.usage_cached_tokens, 1024);
  auto none = parse(R"({"choices":[],"usage":{"prompt_tokens":1300,"prompt_tokens_details":null}})");
  EXPECT_EQ(none.usage_cached_tokens, -1);
}

TEST(ChunkParser, FinishReasons) {
  EXPECT_EQ(parse(R"({"choices":[{"text":"","finish_reason":"length"}]})").finish, FinishReason::Length);
  EXPECT_EQ(parse(R"({"choices":[{"text":"","finish_reason":"stop"}]})").finish, FinishReason::Stop);
  EXPECT_EQ(parse(R"({"choices":[{"text":"","finish_reason":"tool_calls"}]})").finish, FinishReason::Other);
}

TEST(ChunkParser, LlamaCppTimings) {
  auto c = parse(R"({"choices":[{"text":"x"}],"timings":{"prompt_n":10,"cache_n":5,"predicted_n":42,"predicted_per_second":123.5}})");
  EXPECT_EQ(c.timings_predicted_n, 42);
  EXPECT_EQ(c.timings_prompt_n, 10);
  EXPECT_EQ(c.timings_cache_n, 5);
  EXPECT_DOUBLE_EQ(c.timings_predicted_per_second, 123.5);
}

TEST(ChunkParser, TokenIdsCounted) {
  auto c = parse(R"({"choices":[{"text":"abc","token_ids":[1,2,3]}]})");
  EXPECT_EQ(c.token_ids, 3);
}

TEST(ChunkParser, DoneSentinel) { EXPECT_EQ(parse("[DONE]").kind, ChunkInfo::Kind::Done); }

TEST(ChunkParser, ErrorObject) {
  auto c = parse(R"({"error":{"message":"out of memory","code":500}})");
  EXPECT_EQ(c.kind, ChunkInfo::Kind::Error);
  EXPECT_EQ(c.error_message, "out of memory");
}

TEST(ChunkParser, MalformedJsonIsInvalid) {
  EXPECT_EQ(parse(R"({"choices":[{"text":"x"})").kind, ChunkInfo::Kind::Invalid);
  EXPECT_EQ(parse("not json").kind, ChunkInfo::Kind::Invalid);
  EXPECT_EQ(parse("[1,2]").kind, ChunkInfo::Kind::Invalid);
  EXPECT_EQ(parse("").kind, ChunkInfo::Kind::Invalid);
}

TEST(ChunkParser, InvalidUtf8IsInvalid) {
  EXPECT_EQ(parse("{\"choices\":[{\"text\":\"\xff\xfe\"}]}").kind, ChunkInfo::Kind::Invalid);
}

// The server's request id (SGLang aborts by it), without copying it out of the parser.
TEST(ChunkParser, RequestIdIsReadFromEveryChunk) {
  ChunkParser p;
  ChunkInfo info;
  p.parse(R"({"id":"a1b2c3","object":"text_completion","choices":[{"index":0,"text":"Hi"}]})", info);
  EXPECT_EQ(info.id, "a1b2c3");
  p.parse(R"({"object":"text_completion","choices":[{"index":0,"text":"Hi"}]})", info);
  EXPECT_TRUE(info.id.empty());
  p.parse(R"({"id":17,"choices":[]})", info);  // not a string: not an id
  EXPECT_TRUE(info.id.empty());
  p.parse(R"({"choices":[],"usage":{"completion_tokens":3},"id":"chatcmpl-9"})", info);
  EXPECT_EQ(info.id, "chatcmpl-9");
}

TEST(ChunkParser, LargeChunkGrowsBuffer) {
  std::string big = R"({"choices":[{"text":")" + std::string(100000, 'a') + R"("}]})";
  EXPECT_TRUE(parse(big).has_token);
}

}  // namespace
}  // namespace sm
