#include "sim/request_parser.h"

#include <gtest/gtest.h>

#include "sim/sim_tokenizer.h"

namespace sm::sim {
namespace {

ModelLimits limits() {
  ModelLimits l;
  l.model_id = "m-simulated";
  l.model_alias = "m";
  l.max_model_len = 100;
  l.block_size = 4;
  l.natural_length_min = 10;
  l.natural_length_max = 20;
  return l;
}

TEST(RequestParser, CompletionRequestWithBenchmarkFields) {
  RequestParser p;
  auto r = p.parse_generation(
      R"({"model":"m-simulated","prompt":"a b c d e f g h i","max_tokens":8,"min_tokens":8,"ignore_eos":true,)"
      R"("stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"temperature":0,)"
      R"("unknown_field":{"x":[1,2]}})",
      false, limits());
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->spec.prompt_tokens, 9);
  EXPECT_EQ(r->spec.prompt_block_hashes.size(), 2u);
  EXPECT_EQ(r->spec.max_tokens, 8);
  EXPECT_EQ(r->spec.min_tokens, 8);
  EXPECT_TRUE(r->spec.ignore_eos);
  EXPECT_TRUE(r->stream);
  EXPECT_TRUE(r->include_usage);
  EXPECT_TRUE(r->continuous_usage);
  EXPECT_GE(r->spec.natural_length, 10);
  EXPECT_LT(r->spec.natural_length, 20);
}

TEST(RequestParser, TokenIdPromptsAndDefaults) {
  RequestParser p;
  auto r = p.parse_generation(R"({"prompt":[1,2,3,4,5]})", false, limits());
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->spec.prompt_tokens, 5);
  EXPECT_EQ(r->spec.max_tokens, 95) << "vLLM's default: the rest of the context";
  EXPECT_FALSE(r->stream);
  auto nested = p.parse_generation(R"({"prompt":[[1,2,3]],"model":"m"})", false, limits());
  ASSERT_TRUE(nested.has_value());
  EXPECT_EQ(nested->spec.prompt_tokens, 3);
}

TEST(RequestParser, ChatCountsTheTemplate) {
  RequestParser p;
  auto r = p.parse_generation(
      R"({"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi there"}]}],)"
      R"("max_completion_tokens":4,"max_tokens":50})",
      true, limits());
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->spec.prompt_tokens, 4 + 2 * SimTokenizer::kChatTokensPerMessage + SimTokenizer::kChatGenerationPromptTokens);
  EXPECT_EQ(r->spec.max_tokens, 4) << "max_completion_tokens wins on chat";
  auto t = p.parse_tokenize(
      R"({"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi there"}]}]})",
      limits());
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(static_cast<int64_t>((*t)->size()), 4 + 2 * SimTokenizer::kChatTokensPerMessage + SimTokenizer::kChatGenerationPromptTokens);
}

TEST(RequestParser, SaltChangesTheBlockHashes) {
  RequestParser p;
  auto a = p.parse_generation(R"({"prompt":"a b c d e f g h","max_tokens":1})", false, limits());
  auto b = p.parse_generation(R"({"prompt":"a b c d e f g h","max_tokens":1,"cache_salt":"x"})", false, limits());
  auto c = p.parse_generation(R"({"prompt":"a b c d e f g h","max_tokens":1})", false, limits());
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->spec.prompt_block_hashes, c->spec.prompt_block_hashes);
  EXPECT_NE(a->spec.prompt_block_hashes[0], b->spec.prompt_block_hashes[0]);
  EXPECT_EQ(a->text_seed, b->text_seed) << "the salt changes caching, not the answer";
}

TEST(RequestParser, RejectsWhatVllmRejects) {
  RequestParser p;
  auto expect_error = [&](std::string_view body, bool chat, int status, std::string_view needle) {
    auto r = p.parse_generation(body, chat, limits());
    ASSERT_FALSE(r.has_value()) << body;
    EXPECT_EQ(r.error().status, status) << body;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().body().find(R"("error":{"message":)"), std::string::npos);
  };
  expect_error(R"({"prompt":"a",)", false, 400, "invalid JSON");
  expect_error(R"([1,2])", false, 400, "JSON object");
  expect_error(R"({"prompt":"a b","max_tokens":99})", false, 400, "maximum context length is 100");
  expect_error(R"({"prompt":"a","max_tokens":0})", false, 400, "at least 1");
  expect_error(R"({"prompt":"a","max_tokens":"5"})", false, 400, "max_tokens");
  expect_error(R"({"prompt":"a","max_tokens":5,"min_tokens":6})", false, 400, "min_tokens");
  expect_error(R"({"prompt":""})", false, 400, "empty");
  expect_error(R"({"max_tokens":1})", false, 400, "prompt");
  expect_error(R"({"prompt":[1,999999999]})", false, 400, "out of vocabulary");
  expect_error(R"({"prompt":"a","model":"other"})", false, 404, "does not exist");
  expect_error(R"({"prompt":"a","stream_options":{"include_usage":true}})", false, 400, "stream=True");
  expect_error(R"({"prompt":"a","n":2})", false, 400, "n=1");
  expect_error(R"({"messages":"hi"})", true, 400, "messages");
  expect_error(R"({"messages":[{"role":"user","content":[{"type":"image_url"}]}]})", true, 400, "text content");
}

TEST(RequestParser, PromptOfExactlyMaxModelLenIsRejected) {
  RequestParser p;
  std::string words;
  for (int i = 0; i < 100; ++i) words += "w ";
  auto r = p.parse_generation(R"({"prompt":")" + words + R"(","max_tokens":1})", false, limits());
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("your request has 100 input tokens"), std::string::npos) << r.error().message;
}

TEST(RequestParser, Detokenize) {
  RequestParser p;
  auto r = p.parse_detokenize(R"({"tokens":[1,2,3]})");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->size(), 3u);
  EXPECT_FALSE(p.parse_detokenize(R"({"tokens":"x"})").has_value());
}

}  // namespace
}  // namespace sm::sim
