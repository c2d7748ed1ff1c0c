#include "engines/request_builder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sm {
namespace {

nlohmann::json body(EngineKind kind, ApiKind api) {
  CompletionSpec s{"m", "hello", 8192, 0.0, true};
  return nlohmann::json::parse(build_completion_body(kind, api, s));
}

TEST(RequestBuilder, VllmForcesLengthAndAsksContinuousUsage) {
  auto b = body(EngineKind::Vllm, ApiKind::Completions);
  EXPECT_EQ(b["prompt"], "hello");
  EXPECT_EQ(b["max_tokens"], 8192);
  EXPECT_EQ(b["min_tokens"], 8192);
  EXPECT_EQ(b["ignore_eos"], true);
  EXPECT_EQ(b["temperature"], 0.0);
  EXPECT_EQ(b["stream"], true);
  EXPECT_EQ(b["stream_options"]["include_usage"], true);
  EXPECT_EQ(b["stream_options"]["continuous_usage_stats"], true);
}

TEST(RequestBuilder, ChatUsesMessages) {
  auto b = body(EngineKind::Sglang, ApiKind::Chat);
  EXPECT_FALSE(b.contains("prompt"));
  EXPECT_EQ(b["messages"][0]["role"], "user");
  EXPECT_EQ(b["messages"][0]["content"], "hello");
  EXPECT_EQ(completion_path(ApiKind::Chat), "/v1/chat/completions");
}

TEST(RequestBuilder, AConversationGoesAsItsMessages) {
  CompletionSpec s{"m", "ignored", 64, 0.0, true};
  s.messages = {{"user", "first"}, {"assistant", "an answer"}, {"user", "and then?"}};
  auto b = nlohmann::json::parse(build_completion_body(EngineKind::Vllm, ApiKind::Chat, s));
  ASSERT_EQ(b["messages"].size(), 3u);
  EXPECT_EQ(b["messages"][1]["role"], "assistant");
  EXPECT_EQ(b["messages"][1]["content"], "an answer");
  EXPECT_EQ(b["messages"][2]["content"], "and then?");
  auto plain = nlohmann::json::parse(build_completion_body(EngineKind::Vllm, ApiKind::Completions, s));
  EXPECT_EQ(plain["prompt"], "ignored");  // the completions API has no messages
}

TEST(RequestBuilder, LlamaCppUsesItsOwnFields) {
  auto b = body(EngineKind::LlamaCpp, ApiKind::Completions);
  EXPECT_EQ(b["n_predict"], 8192);
  EXPECT_EQ(b["ignore_eos"], true);
  EXPECT_EQ(b["timings_per_token"], true);
  EXPECT_FALSE(b.contains("min_tokens"));
  EXPECT_FALSE(b["stream_options"].contains("continuous_usage_stats"));
}

TEST(RequestBuilder, UnknownServersGetOnlyStandardFields) {
  for (EngineKind k : {EngineKind::OpenAi, EngineKind::Tgi, EngineKind::Ollama}) {
    auto b = body(k, ApiKind::Completions);
    EXPECT_FALSE(b.contains("ignore_eos"));
    EXPECT_FALSE(b.contains("min_tokens"));
    EXPECT_EQ(b["max_tokens"], 8192);
    EXPECT_EQ(b["stream_options"]["include_usage"], true);
  }
}

}  // namespace
}  // namespace sm

namespace sm {
namespace {

TEST(RequestBuilder, AnUnstreamedDeterministicRequest) {
  CompletionSpec s{"m", "hello", 48, 0.0, false};
  s.stream = false;
  for (EngineKind k : {EngineKind::Vllm, EngineKind::LlamaCpp}) {
    auto b = nlohmann::json::parse(build_completion_body(k, ApiKind::Completions, s));
    EXPECT_EQ(b["stream"], false);
    EXPECT_FALSE(b.contains("stream_options"));
    EXPECT_FALSE(b.contains("timings_per_token"));
    EXPECT_FALSE(b.contains("ignore_eos"));
    EXPECT_FALSE(b.contains("min_tokens"));
    EXPECT_EQ(b["temperature"], 0.0);
    EXPECT_EQ(b["max_tokens"], 48);
  }
}

}  // namespace
}  // namespace sm
