// The simulated engine's /metrics read into a ServerReading by the same reader a run uses
// (ServerLoadReader, vLLM names): preemptions, KV usage and prefix-cache counters come through.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engines/server_load.h"
#include "sim/linear_cost_model.h"
#include "sim/sim_server.h"
#include "sim_http_client.h"

namespace sm::sim {
namespace {

using nlohmann::json;

SimConfig small_pool_config() {
  SimConfig c;
  c.model_name = "Test-Model";
  c.kv_capacity_tokens = 96;  // 6 blocks of 16
  c.max_model_len = 96;
  LinearCostParams p;
  p.fixed_s = 0.02;  // long steps: both requests are in the batch before either finishes
  p.per_stream_s = 0;
  p.per_context_token_s = 0;
  p.per_prefill_token_s = 1e-6;
  c.cost_model = std::make_shared<LinearCostModel>(p);
  return c;
}

std::string words(int n, const std::string& word) {
  std::string out;
  for (int i = 0; i < n; ++i) out += word + std::to_string(i) + " ";
  return out;
}

TEST(SimMetricsReading, PreemptionsKvUsageAndPrefixCacheReadUnderVllmNames) {
  auto server = SimServer::start(small_pool_config());
  ASSERT_TRUE(server.has_value()) << server.error().message;
  const std::string url = (*server)->base_url();

  auto reader = ServerLoadReader::detect(EngineKind::Vllm, url, {}, load_transport());
  ASSERT_TRUE(reader.has_value());
  EXPECT_EQ(reader->source(), LoadSource::VllmMetrics);
  auto before = reader->read_reading();
  ASSERT_TRUE(before.has_value()) << before.error().message;
  EXPECT_EQ(before->running, 0);
  EXPECT_EQ(before->waiting, 0);
  EXPECT_DOUBLE_EQ(*before->kv_usage, 0);
  EXPECT_DOUBLE_EQ(*before->preemptions_total, 0);

  // Two requests that each grow to 4 of the 6 blocks: the pool runs out and one is preempted.
  std::vector<std::string> bodies;
  for (int i = 0; i < 2; ++i)
    bodies.push_back(json{{"prompt", words(12, "r" + std::to_string(i) + "w")}, {"max_tokens", 40},
                          {"ignore_eos", true}, {"stream", true}}
                         .dump());
  auto replies = test::http_stream_many(url + "/v1/completions", bodies);
  for (const auto& r : replies) ASSERT_EQ(r.status, 200);

  auto after = reader->read_reading();
  ASSERT_TRUE(after.has_value()) << after.error().message;
  const std::string text = test::http_get(url + "/metrics").body;
  EXPECT_GE(*after->preemptions_total, 1) << text;
  EXPECT_DOUBLE_EQ(*after->preemptions_total, test::metric_value(text, "vllm:num_preemptions_total"));
  EXPECT_DOUBLE_EQ(*after->kv_usage, 0) << "both finished: every block is free again";
  EXPECT_EQ(after->running, 0);
  EXPECT_GT(*after->prefix_cache_queries_total, 0);
  EXPECT_DOUBLE_EQ(*after->prefix_cache_queries_total, test::metric_value(text, "vllm:prefix_cache_queries_total"));
  EXPECT_DOUBLE_EQ(*after->prefix_cache_hits_total, test::metric_value(text, "vllm:prefix_cache_hits_total"));
  EXPECT_FALSE(after->spec_draft_tokens_total.has_value()) << "the simulated engine does not speculate";
}

}  // namespace
}  // namespace sm::sim
