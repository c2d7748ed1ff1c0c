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

// Speculative decoding (sim --spec-tokens): vLLM's spec_decode counters under their names, read
// by the run's reader, and an answer of 40 tokens streamed in fewer chunks than tokens.
TEST(SimMetricsReading, SpeculationCountersReadUnderVllmNames) {
  SimConfig c = small_pool_config();
  c.kv_capacity_tokens = 4096;
  c.max_model_len = 1024;
  c.spec_tokens = 3;
  c.spec_accept_rate = 0.6;
  auto server = SimServer::start(c);
  ASSERT_TRUE(server.has_value()) << server.error().message;
  const std::string url = (*server)->base_url();
  auto reader = ServerLoadReader::detect(EngineKind::Vllm, url, {}, load_transport());
  ASSERT_TRUE(reader.has_value());
  const std::string body = json{{"prompt", words(12, "s")}, {"max_tokens", 40}, {"ignore_eos", true},
                                {"stream", true}, {"stream_options", {{"include_usage", true}}}}
                               .dump();
  auto replies = test::http_stream_many(url + "/v1/completions", {body});
  ASSERT_EQ(replies.at(0).status, 200);
  EXPECT_NE(replies[0].raw.find("\"completion_tokens\":40"), std::string::npos);
  size_t chunks = 0;
  for (size_t at = replies[0].raw.find("\"text\""); at != std::string::npos; at = replies[0].raw.find("\"text\"", at + 1))
    ++chunks;
  EXPECT_LT(chunks, 40u) << "accepted drafts arrive together";
  auto after = reader->read_reading();
  ASSERT_TRUE(after.has_value()) << after.error().message;
  const std::string text = test::http_get(url + "/metrics").body;
  ASSERT_TRUE(after->spec_draft_tokens_total && after->spec_accepted_tokens_total && after->spec_drafts_total) << text;
  EXPECT_GT(*after->spec_drafts_total, 0);
  EXPECT_LE(*after->spec_draft_tokens_total, 3 * *after->spec_drafts_total);
  EXPECT_GT(*after->spec_accepted_tokens_total, 0);
  EXPECT_DOUBLE_EQ(*after->spec_accepted_tokens_total, test::metric_value(text, "vllm:spec_decode_num_accepted_tokens_total"));
  // 39 tokens after the first: one per decode step plus the accepted drafts; every step but
  // perhaps the last (one token left) verified a draft.
  const double drafted_steps_and_accepted = *after->spec_drafts_total + *after->spec_accepted_tokens_total;
  EXPECT_GE(drafted_steps_and_accepted, 38);
  EXPECT_LE(drafted_steps_and_accepted, 39);
}

}  // namespace
}  // namespace sm::sim
