// Black-box tests of the simulated server over real HTTP on port 0. Timing is never asserted
// against a wall-clock threshold: tests compare what the server recorded with what the client saw.
#include "sim/sim_server.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <thread>

#include "engines/probe.h"
#include "sim/linear_cost_model.h"
#include "sim/sim_tokenizer.h"
#include "sim_http_client.h"

namespace sm::sim {
namespace {

using nlohmann::json;
using test::http_get;
using test::http_post;
using test::http_stream;
using test::metric_value;

SimConfig test_config(double step_s = 0.001) {
  SimConfig c;
  c.model_name = "Test-Model";
  c.kv_capacity_tokens = 64 * 1024;
  c.max_model_len = 4096;
  LinearCostParams p;
  p.fixed_s = step_s;
  p.per_stream_s = 0;
  p.per_context_token_s = 0;
  p.per_prefill_token_s = 1e-6;
  c.cost_model = std::make_shared<LinearCostModel>(p);
  return c;
}

std::unique_ptr<SimServer> start(const SimConfig& c) {
  auto s = SimServer::start(c);
  EXPECT_TRUE(s.has_value()) << s.error().message;
  return s ? std::move(*s) : nullptr;
}

std::string words(int n, const std::string& word = "w") {
  std::string out;
  for (int i = 0; i < n; ++i) out += word + std::to_string(i) + " ";
  return out;
}

bool simulated_header(const std::string& headers) {
  return headers.find("x-speedmatrix-simulated: true") != std::string::npos;
}

TEST(SimServer, IdentityRoutesSaySimulated) {
  auto server = start(test_config());
  ASSERT_TRUE(server);
  const std::string url = server->base_url();
  EXPECT_TRUE(url.starts_with("http://127.0.0.1:"));
  EXPECT_NE(server->port(), 0);

  auto models = http_get(url + "/v1/models");
  ASSERT_EQ(models.status, 200);
  EXPECT_TRUE(simulated_header(models.headers));
  json m = json::parse(models.body);
  EXPECT_EQ(m["object"], "list");
  EXPECT_EQ(m["data"][0]["id"], "Test-Model-simulated");
  EXPECT_EQ(m["data"][0]["owned_by"], "vllm");
  EXPECT_EQ(m["data"][0]["root"], "Test-Model");
  EXPECT_EQ(m["data"][0]["max_model_len"], 4096);

  auto version = http_get(url + "/version");
  EXPECT_EQ(version.status, 200);
  EXPECT_EQ(json::parse(version.body)["version"], "0.10.1-sim");
  EXPECT_TRUE(simulated_header(version.headers));

  auto health = http_get(url + "/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_TRUE(health.body.empty());
  EXPECT_TRUE(simulated_header(health.headers));

  auto missing = http_get(url + "/get_server_info");
  EXPECT_EQ(missing.status, 404);
  EXPECT_TRUE(simulated_header(missing.headers));
  EXPECT_EQ(http_post(url + "/v1/models", "{}").status, 405);
}

TEST(SimServer, CompletionStreamHasVllmFormatUsageAndDone) {
  auto server = start(test_config());
  ASSERT_TRUE(server);
  const std::string prompt = words(37);
  auto reply = http_stream(server->base_url() + "/v1/completions",
                           json{{"model", server->model_id()}, {"prompt", prompt}, {"max_tokens", 12},
                                {"min_tokens", 12}, {"ignore_eos", true}, {"stream", true},
                                {"stream_options", {{"include_usage", true}}}}
                               .dump());
  ASSERT_EQ(reply.status, 200);
  EXPECT_TRUE(simulated_header(reply.headers));
  EXPECT_NE(reply.headers.find("text/event-stream"), std::string::npos);
  ASSERT_EQ(reply.events.size(), 12u + 2u) << reply.raw;
  for (size_t i = 0; i < 12; ++i) {
    const ChunkInfo& c = reply.events[i].info;
    EXPECT_EQ(c.kind, ChunkInfo::Kind::Data);
    EXPECT_TRUE(c.has_token);
    EXPECT_EQ(c.usage_completion_tokens, -1) << "no usage without continuous_usage_stats";
    EXPECT_EQ(c.finish, i == 11 ? FinishReason::Length : FinishReason::None);
    json j = json::parse(reply.events[i].data);
    EXPECT_EQ(j["object"], "text_completion");
    EXPECT_EQ(j["model"], "Test-Model-simulated");
    EXPECT_TRUE(j["choices"][0]["text"].is_string());
  }
  const ChunkInfo& usage = reply.events[12].info;
  EXPECT_FALSE(usage.has_choices);
  EXPECT_EQ(usage.usage_completion_tokens, 12);
  EXPECT_EQ(usage.usage_prompt_tokens, 37);
  EXPECT_EQ(reply.events[13].info.kind, ChunkInfo::Kind::Done);
  EXPECT_TRUE(reply.raw.ends_with("data: [DONE]\n\n"));

  // The client measured at least what the engine modelled (tokens never leave early).
  SimStats s = server->stats();
  EXPECT_EQ(s.scheduler.steps, 12);
  EXPECT_EQ(s.scheduler.generation_tokens, 12);
  EXPECT_EQ(s.scheduler.requests_finished_length, 1);
}

TEST(SimServer, ContinuousUsageOnEveryChunk) {
  auto server = start(test_config());
  ASSERT_TRUE(server);
  auto reply = http_stream(server->base_url() + "/v1/completions",
                           json{{"prompt", words(5)}, {"max_tokens", 6}, {"ignore_eos", true}, {"stream", true},
                                {"stream_options", {{"include_usage", true}, {"continuous_usage_stats", true}}}}
                               .dump());
  ASSERT_EQ(reply.events.size(), 8u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(reply.events[i].info.usage_completion_tokens, i + 1);
    EXPECT_EQ(reply.events[i].info.usage_prompt_tokens, 5);
  }
  EXPECT_EQ(reply.events[6].info.usage_completion_tokens, 6);
}

TEST(SimServer, ChatStreamStartsWithARoleChunk) {
  auto server = start(test_config());
  ASSERT_TRUE(server);
  json body = {{"messages", {{{"role", "user"}, {"content", words(10)}}}},
               {"max_completion_tokens", 4},
               {"ignore_eos", true},
               {"stream", true},
               {"stream_options", {{"include_usage", true}}}};
  auto reply = http_stream(server->base_url() + "/v1/chat/completions", body.dump());
  ASSERT_EQ(reply.status, 200);
  ASSERT_EQ(reply.events.size(), 1u + 4u + 2u) << reply.raw;
  EXPECT_TRUE(reply.events[0].info.has_choices);
  EXPECT_FALSE(reply.events[0].info.has_token);
  json role = json::parse(reply.events[0].data);
  EXPECT_EQ(role["object"], "chat.completion.chunk");
  EXPECT_EQ(role["choices"][0]["delta"]["role"], "assistant");
  for (int i = 1; i <= 4; ++i) {
    EXPECT_TRUE(reply.events[i].info.has_token);
    EXPECT_TRUE(json::parse(reply.events[i].data)["choices"][0]["delta"]["content"].is_string());
  }
  EXPECT_EQ(reply.events[4].info.finish, FinishReason::Length);
  const int64_t expected_prompt =
      10 + SimTokenizer::kChatTokensPerMessage + SimTokenizer::kChatGenerationPromptTokens;
  EXPECT_EQ(reply.events[5].info.usage_prompt_tokens, expected_prompt);
  EXPECT_EQ(reply.events[6].info.kind, ChunkInfo::Kind::Done);

  auto count = http_post(server->base_url() + "/tokenize", json{{"messages", body["messages"]}}.dump());
  ASSERT_EQ(count.status, 200);
  EXPECT_EQ(json::parse(count.body)["count"], expected_prompt) << "tokenize agrees with usage";
}

TEST(SimServer, TokenizeAgreesWithUsage) {
  auto server = start(test_config());
  ASSERT_TRUE(server);
  const std::string url = server->base_url();
  for (const std::string& prompt : {words(1), words(300), std::string("x") + std::string(40, 'y') + " tail  \n"}) {
    auto tok = http_post(url + "/tokenize", json{{"model", server->model_id()}, {"prompt", prompt}}.dump());
    ASSERT_EQ(tok.status, 200);
    json t = json::parse(tok.body);
    EXPECT_EQ(t["max_model_len"], 4096);
    EXPECT_EQ(t["tokens"].size(), t["count"].get<size_t>());
    auto gen = http_post(url + "/v1/completions", json{{"prompt", prompt}, {"max_tokens", 2}}.dump());
    ASSERT_EQ(gen.status, 200) << gen.body;
    json g = json::parse(gen.body);
    EXPECT_EQ(g["usage"]["prompt_tokens"], t["count"]);
    EXPECT_EQ(g["usage"]["completion_tokens"], 2);
    // The ids /tokenize returned are the same prompt.
    auto by_ids = http_post(url + "/v1/completions", json{{"prompt", t["tokens"]}, {"max_tokens", 1}}.dump());
    EXPECT_EQ(json::parse(by_ids.body)["usage"]["prompt_tokens"], t["count"]);
  }
}

TEST(SimServer, NonStreamingChat) {
  auto server = start(test_config());
  ASSERT_TRUE(server);
  auto r = http_post(server->base_url() + "/v1/chat/completions",
                     json{{"messages", {{{"role", "user"}, {"content", "hi"}}}}, {"max_tokens", 3}}.dump());
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(simulated_header(r.headers));
  json j = json::parse(r.body);
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_EQ(j["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(j["usage"]["completion_tokens"], 3);
  EXPECT_EQ(SimTokenizer::count(j["choices"][0]["message"]["content"].get<std::string>()), 3);
}

TEST(SimServer, BadRequestsGetOpenAiStyleErrors) {
  auto server = start(test_config());
  ASSERT_TRUE(server);
  const std::string url = server->base_url() + "/v1/completions";
  auto malformed = http_post(url, R"({"prompt": "a", )");
  EXPECT_EQ(malformed.status, 400);
  EXPECT_TRUE(simulated_header(malformed.headers));
  json e = json::parse(malformed.body);
  EXPECT_EQ(e["error"]["code"], 400);
  EXPECT_EQ(e["error"]["type"], "BadRequestError");
  auto too_long = http_post(url, json{{"prompt", words(100)}, {"max_tokens", 4000}}.dump());
  EXPECT_EQ(too_long.status, 400);
  EXPECT_NE(json::parse(too_long.body)["error"]["message"].get<std::string>().find("maximum context length is 4096"),
            std::string::npos);
  auto wrong_model = http_post(url, json{{"prompt", "a"}, {"model", "gpt-4"}}.dump());
  EXPECT_EQ(wrong_model.status, 404);
  // A rejected request leaves the connection and the engine as they were.
  EXPECT_EQ(server->stats().scheduler.requests_added, 0);
  EXPECT_EQ(http_post(url, json{{"prompt", "a"}, {"max_tokens", 1}}.dump()).status, 200);
}

TEST(SimServer, RequestsWaitWhenTheKvPoolIsFull) {
  // 16 blocks of 16 tokens: two requests of 100 prompt + 20 output (8 blocks each) fit, four do not.
  SimConfig c = test_config(0.02);  // long steps: all four arrive while the first two run
  c.kv_capacity_tokens = 256;
  c.max_model_len = 256;
  auto server = start(c);
  ASSERT_TRUE(server);
  std::vector<std::string> bodies;
  for (int i = 0; i < 4; ++i)
    bodies.push_back(json{{"prompt", words(100, "r" + std::to_string(i) + "w")}, {"max_tokens", 20},
                          {"ignore_eos", true}, {"stream", true}, {"stream_options", {{"include_usage", true}}}}
                         .dump());
  auto replies = test::http_stream_many(server->base_url() + "/v1/completions", bodies);
  for (const auto& r : replies) {
    ASSERT_EQ(r.status, 200);
    ASSERT_GE(r.events.size(), 2u);
    EXPECT_EQ(r.events[r.events.size() - 2].info.usage_completion_tokens, 20);
  }
  auto metrics = http_get(server->base_url() + "/metrics").body;
  EXPECT_EQ(metric_value(metrics, "speedmatrix_sim_max_running"), 2) << metrics;
  EXPECT_EQ(metric_value(metrics, "speedmatrix_sim_max_waiting"), 2);
  EXPECT_EQ(metric_value(metrics, "vllm:num_preemptions_total"), 0);
  EXPECT_EQ(metric_value(metrics, "vllm:num_requests_running"), 0);
  EXPECT_EQ(metric_value(metrics, "vllm:kv_cache_usage_perc"), 0);
  EXPECT_EQ(metric_value(metrics, "vllm:generation_tokens_total"), 80);
  EXPECT_EQ(metric_value(metrics, "vllm:cache_config_info", "num_gpu_blocks=\"16\""), 1);
}

TEST(SimServer, RepeatedPromptHitsThePrefixCache) {
  auto server = start(test_config());
  ASSERT_TRUE(server);
  const std::string url = server->base_url();
  json body = {{"prompt", words(200)}, {"max_tokens", 1}};
  ASSERT_EQ(http_post(url + "/v1/completions", body.dump()).status, 200);
  ASSERT_EQ(http_post(url + "/v1/completions", body.dump()).status, 200);
  auto metrics = http_get(url + "/metrics").body;
  EXPECT_EQ(metric_value(metrics, "vllm:prefix_cache_queries_total"), 400);
  EXPECT_EQ(metric_value(metrics, "vllm:prefix_cache_hits_total"), 192);
  EXPECT_EQ(metric_value(metrics, "speedmatrix_sim_prefill_tokens_computed_total"), 200 + 8);
  body["cache_salt"] = "fresh";
  ASSERT_EQ(http_post(url + "/v1/completions", body.dump()).status, 200);
  metrics = http_get(url + "/metrics").body;
  EXPECT_EQ(metric_value(metrics, "vllm:prefix_cache_hits_total"), 192) << "a new salt shares nothing";
  EXPECT_EQ(metric_value(metrics, "speedmatrix_sim_prefill_tokens_computed_total"), 200 + 8 + 200);
}

TEST(SimServer, MetricsCarryVllmCacheConfigLabelsTheProbeReads) {
  SimConfig c = test_config();
  c.kv_capacity_tokens = 530'000;  // not a whole number of blocks: 33,125 blocks of 16
  c.max_model_len = 262'144;
  auto server = start(c);
  ASSERT_TRUE(server);
  auto metrics = http_get(server->base_url() + "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_TRUE(simulated_header(metrics.headers));
  for (const char* label : {"block_size=\"16\"", "num_gpu_blocks=\"33125\"", "kv_cache_size_tokens=\"530000\"",
                            "enable_prefix_caching=\"True\"", "gpu_memory_utilization=\"0.9\"", "engine=\"0\""})
    EXPECT_EQ(metric_value(metrics.body, "vllm:cache_config_info", label), 1) << label;
  for (const char* name : {"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
                           "vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:num_preemptions_total",
                           "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total",
                           "speedmatrix_sim_late_steps_total"})
    EXPECT_GE(metric_value(metrics.body, name), 0) << name;

  auto probe = probe_server(ProbeOptions{server->base_url(), {}, {}}, default_transport());
  ASSERT_TRUE(probe.has_value()) << probe.error().message;
  EXPECT_EQ(probe->kind, EngineKind::Vllm);
  EXPECT_TRUE(probe->simulated);
  EXPECT_EQ(probe->engine.model, "Test-Model-simulated");
  EXPECT_EQ(probe->engine.max_model_len, 262'144);
  EXPECT_EQ(probe->engine.kv_capacity_tokens, 530'000);
}

TEST(SimServer, StreamIntervalPacksTokens) {
  SimConfig c = test_config();
  c.stream_interval = 4;
  auto server = start(c);
  ASSERT_TRUE(server);
  auto reply = http_stream(server->base_url() + "/v1/completions",
                           json{{"prompt", "a b"}, {"max_tokens", 10}, {"ignore_eos", true}, {"stream", true},
                                {"return_token_ids", true},
                                {"stream_options", {{"include_usage", true}, {"continuous_usage_stats", true}}}}
                               .dump());
  ASSERT_EQ(reply.events.size(), 3u + 2u) << reply.raw;
  EXPECT_EQ(reply.events[0].info.usage_completion_tokens, 4);
  EXPECT_EQ(reply.events[0].info.token_ids, 4);
  EXPECT_EQ(reply.events[1].info.usage_completion_tokens, 8);
  EXPECT_EQ(reply.events[2].info.usage_completion_tokens, 10);
  EXPECT_EQ(reply.events[2].info.token_ids, 2);
  EXPECT_EQ(reply.events[2].info.finish, FinishReason::Length);
}

TEST(SimServer, WithoutIgnoreEosAnswersEndWithStop) {
  SimConfig c = test_config();
  c.natural_length_min = 3;
  c.natural_length_max = 6;
  auto server = start(c);
  ASSERT_TRUE(server);
  auto reply = http_stream(server->base_url() + "/v1/completions",
                           json{{"prompt", "a b"}, {"max_tokens", 50}, {"stream", true},
                                {"stream_options", {{"include_usage", true}}}}
                               .dump());
  ASSERT_GE(reply.events.size(), 3u);
  const auto& last = reply.events[reply.events.size() - 3].info;
  EXPECT_EQ(last.finish, FinishReason::Stop);
  int64_t n = reply.events[reply.events.size() - 2].info.usage_completion_tokens;
  EXPECT_GE(n, 3);
  EXPECT_LT(n, 6);
}

TEST(SimServer, ClientThatLeavesAbortsItsRequest) {
  auto server = start(test_config(0.005));
  ASSERT_TRUE(server);
  // Read three events, then drop the connection.
  ensure_curl_global_init();
  struct State {
    int events = 0;
  } state;
  std::string body = json{{"prompt", words(20)}, {"max_tokens", 4000}, {"ignore_eos", true}, {"stream", true}}.dump();
  CURL* c = curl_easy_init();
  curl_easy_setopt(c, CURLOPT_URL, (server->base_url() + "/v1/completions").c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, +[](char* p, size_t size, size_t n, void* user) -> size_t {
    auto* s = static_cast<State*>(user);
    s->events += static_cast<int>(std::string_view(p, size * n).find("data: ") != std::string_view::npos);
    return s->events >= 3 ? 0 : size * n;  // 0 makes curl abort the transfer
  });
  EXPECT_EQ(curl_easy_perform(c), CURLE_WRITE_ERROR);
  curl_easy_cleanup(c);  // closes the connection
  SimStats s;
  for (int i = 0; i < 2000; ++i) {  // the server notices at its next read, frees at the step's end
    s = server->stats();
    if (s.scheduler.requests_aborted == 1 && s.scheduler.running == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(s.scheduler.requests_aborted, 1);
  EXPECT_EQ(s.scheduler.running, 0);
  EXPECT_EQ(s.scheduler.free_blocks, s.scheduler.num_blocks);
  EXPECT_LT(s.scheduler.generation_tokens, 4000);
}

TEST(SimServer, KeepAliveServesManyRequestsOnOneConnection) {
  auto server = start(test_config());
  ASSERT_TRUE(server);
  ensure_curl_global_init();
  CURL* c = curl_easy_init();
  std::string sink;
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, test::detail::append_to_string);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  std::string stream_body = json{{"prompt", "a"}, {"max_tokens", 3}, {"stream", true}}.dump();
  for (int i = 0; i < 3; ++i) {
    curl_easy_setopt(c, CURLOPT_URL, (server->base_url() + "/v1/completions").c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, stream_body.c_str());
    EXPECT_EQ(curl_easy_perform(c), CURLE_OK);
    curl_easy_setopt(c, CURLOPT_URL, (server->base_url() + "/health").c_str());
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    EXPECT_EQ(curl_easy_perform(c), CURLE_OK);
  }
  curl_easy_cleanup(c);
  SimStats s = server->stats();
  EXPECT_EQ(s.connections_accepted, 1);
  EXPECT_EQ(s.http_requests, 6);
  EXPECT_EQ(s.scheduler.generation_tokens, 9);
}

TEST(SimServer, LargeBodiesAndManyConcurrentStreams) {
  SimConfig c = test_config();
  c.max_model_len = 64 * 1024;
  auto server = start(c);
  ASSERT_TRUE(server);
  // Over 1 MB: libcurl sends "Expect: 100-continue" and waits for the server's go-ahead.
  std::string big = words(65'000, "longerword_");
  auto tok = http_post(server->base_url() + "/tokenize", json{{"prompt", big}}.dump());
  ASSERT_EQ(tok.status, 200);
  EXPECT_EQ(json::parse(tok.body)["count"], 65'000);

  std::vector<std::string> bodies;
  for (int i = 0; i < 64; ++i)
    bodies.push_back(json{{"prompt", words(50, "s" + std::to_string(i))}, {"max_tokens", 16}, {"ignore_eos", true},
                          {"stream", true}}
                         .dump());
  auto replies = test::http_stream_many(server->base_url() + "/v1/completions", bodies);
  for (const auto& r : replies) {
    ASSERT_EQ(r.status, 200);
    ASSERT_EQ(r.events.size(), 17u);
  }
  SimStats s = server->stats();
  EXPECT_EQ(s.scheduler.generation_tokens, 64 * 16);
  EXPECT_GT(s.scheduler.max_running, 1);
}

TEST(SimServer, ModelledTimeIsAFloorForWhatTheClientSees) {
  auto server = start(test_config(0.004));
  ASSERT_TRUE(server);
  const int64_t sent_ns = test::steady_ns();
  auto reply = http_stream(server->base_url() + "/v1/completions",
                           json{{"prompt", words(30)}, {"max_tokens", 25}, {"ignore_eos", true}, {"stream", true}}.dump());
  ASSERT_EQ(reply.events.size(), 26u);
  const double client_s = static_cast<double>(reply.events[24].arrival_ns - sent_ns) * 1e-9;
  SimStats s = server->stats();
  EXPECT_EQ(s.scheduler.steps, 25);
  EXPECT_NEAR(s.scheduler.busy_s, 25 * 0.004 + 30 * 1e-6, 1e-9);
  // Each step's tokens leave at its due time or later, never earlier.
  EXPECT_GE(client_s, s.scheduler.busy_s);
}

TEST(SimServer, TheApiServerTakesRequestsOneAtATime) {
  SimConfig c = test_config();
  LinearCostParams p;
  p.fixed_s = 0.001;
  p.per_stream_s = p.per_context_token_s = p.per_prefill_token_s = 0;
  p.per_request_s = 0.010;
  c.cost_model = std::make_shared<LinearCostModel>(p);
  auto server = start(c);
  ASSERT_TRUE(server);
  std::vector<std::string> bodies;
  for (int i = 0; i < 4; ++i)
    bodies.push_back(json{{"prompt", words(8, "q" + std::to_string(i))}, {"max_tokens", 2}, {"stream", true}}.dump());
  const int64_t sent_ns = test::steady_ns();
  auto replies = test::http_stream_many(server->base_url() + "/v1/completions", bodies);
  int64_t last_first_token_ns = 0;
  for (const auto& r : replies) {
    ASSERT_EQ(r.events.size(), 3u);
    last_first_token_ns = std::max(last_first_token_ns, r.events[0].arrival_ns);
  }
  // Four requests at 10 ms each, then a 1 ms step: the last first token cannot come sooner.
  EXPECT_GE(last_first_token_ns - sent_ns, 41'000'000);
}

TEST(SimServer, RejectsConfigsVllmWouldRefuse) {
  SimConfig c = test_config();
  c.kv_capacity_tokens = 1000;
  c.max_model_len = 4096;
  auto s = SimServer::start(c);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::InvalidArgument);
  c = test_config();
  c.listen_host = "not-an-address";
  EXPECT_FALSE(SimServer::start(c).has_value());
}

TEST(SimServer, StopIsIdempotentAndKeepsTheLastStats) {
  auto server = start(test_config());
  ASSERT_TRUE(server);
  ASSERT_EQ(http_post(server->base_url() + "/v1/completions", json{{"prompt", "a"}, {"max_tokens", 2}}.dump()).status,
            200);
  server->stop();
  server->stop();
  EXPECT_EQ(server->stats().scheduler.generation_tokens, 2);
  EXPECT_EQ(http_get(server->base_url() + "/health").status, 0) << "nothing listens any more";
}

}  // namespace
}  // namespace sm::sim
