// Each engine's whole reading (KV usage, preemptions, prefix cache, speculative decoding) from
// fixture /metrics texts; every fixture names the engine release whose layout it follows, and its
// numbers are format samples.
#include "engines/server_metrics.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& engine, const std::string& file) {
  auto text = test::read_file(fs::path(SPEEDMATRIX_SOURCE_DIR) / "tests/engines/fixtures" / engine / file);
  EXPECT_FALSE(text.empty()) << engine << "/" << file;
  return text;
}

// Serves path -> body (200); anything else 404. Counts the requests.
struct FakeServer {
  std::map<std::string, std::string> bodies;
  int requests = 0;
  HttpTransport transport() {
    return [this](const HttpRequest& req) -> Result<HttpResponse> {
      ++requests;
      std::string path = req.url.substr(req.url.find('/', req.url.find("//") + 2));
      if (auto it = bodies.find(path); it != bodies.end()) return HttpResponse{200, it->second, "text/plain"};
      return HttpResponse{404, "Not Found", "text/plain"};
    };
  }
};

TEST(ServerMetrics, Vllm09ReadsEveryFigureAndPrefersTheCurrentNames) {
  auto r = read_vllm_reading(fixture("vllm", "GET_metrics_v0.9_spec.txt"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->running, 12);
  EXPECT_EQ(r->waiting, 3);
  EXPECT_DOUBLE_EQ(*r->kv_usage, 0.8734);
  EXPECT_DOUBLE_EQ(*r->preemptions_total, 7);  // the _total sample, not num_preemptions_created
  EXPECT_DOUBLE_EQ(*r->prefix_cache_queries_total, 412345);
  EXPECT_DOUBLE_EQ(*r->prefix_cache_hits_total, 198720);
  EXPECT_FALSE(r->prefix_cache_hit_rate.has_value());  // V1 exports counters, not a rate
  EXPECT_DOUBLE_EQ(*r->spec_draft_tokens_total, 45000);
  EXPECT_DOUBLE_EQ(*r->spec_accepted_tokens_total, 29000);
  EXPECT_DOUBLE_EQ(*r->spec_drafts_total, 15000);
  EXPECT_FALSE(r->spec_accept_length.has_value());
}

TEST(ServerMetrics, VllmDataParallelEnginesSumCountsAndKeepTheFullestKv) {
  auto r = read_vllm_reading(fixture("vllm", "GET_metrics_busy.txt"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->running, 8);
  EXPECT_EQ(r->waiting, 2);
  EXPECT_DOUBLE_EQ(*r->kv_usage, 0.41);  // engine 0 at 0.41, engine 1 at 0.27
  EXPECT_FALSE(r->preemptions_total.has_value());
  EXPECT_FALSE(r->prefix_cache_queries_total.has_value());

  auto idle = read_vllm_reading(fixture("vllm", "GET_metrics_idle.txt"));
  ASSERT_TRUE(idle.has_value());
  EXPECT_DOUBLE_EQ(*idle->preemptions_total, 0);
  EXPECT_FALSE(idle->kv_usage.has_value());
}

TEST(ServerMetrics, VllmV0EngineNames) {
  auto r = read_vllm_reading(fixture("vllm", "GET_metrics_v0.6_engine.txt"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->running, 9);
  EXPECT_EQ(r->waiting, 2);
  EXPECT_DOUBLE_EQ(*r->kv_usage, 0.62);  // gpu_cache_usage_perc
  EXPECT_DOUBLE_EQ(*r->preemptions_total, 3);
  EXPECT_DOUBLE_EQ(*r->prefix_cache_hit_rate, 0.41);  // gpu_prefix_cache_hit_rate (the CPU one is -1: off)
  EXPECT_FALSE(r->prefix_cache_queries_total.has_value());
  EXPECT_DOUBLE_EQ(*r->spec_draft_tokens_total, 50000);
  EXPECT_DOUBLE_EQ(*r->spec_accepted_tokens_total, 35500);
}

TEST(ServerMetrics, VllmV1Before09UsesTheGpuPrefixedCounters) {
  auto r = read_vllm_reading(
      "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 1.0\n"
      "vllm:gpu_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.25\n"
      "vllm:gpu_prefix_cache_queries_total{engine=\"0\",model_name=\"m\"} 1000.0\n"
      "vllm:gpu_prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} 600.0\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(*r->kv_usage, 0.25);
  EXPECT_DOUBLE_EQ(*r->prefix_cache_queries_total, 1000);
  EXPECT_DOUBLE_EQ(*r->prefix_cache_hits_total, 600);
}

TEST(ServerMetrics, ValuesThatCannotBeWhatTheNameSaysAreNotRead) {
  auto r = read_vllm_reading(
      "vllm:num_requests_running 1\n"
      "vllm:kv_cache_usage_perc 57.0\n"          // a percentage would read as 57 times full
      "vllm:num_preemptions_total -1\n"          // a counter is never negative
      "vllm:gpu_prefix_cache_hit_rate -1\n"      // v0 says -1 when prefix caching is off
      "vllm:spec_decode_num_draft_tokens_total NaN\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->running, 1);
  EXPECT_FALSE(r->kv_usage.has_value());
  EXPECT_FALSE(r->preemptions_total.has_value());
  EXPECT_FALSE(r->prefix_cache_hit_rate.has_value());
  EXPECT_FALSE(r->spec_draft_tokens_total.has_value());
  EXPECT_FALSE(read_vllm_reading("vllm:kv_cache_usage_perc 0.5\n").has_value()) << "no running count: not a reading";
}

TEST(ServerMetrics, SglangCountsEveryRankOfOneEngineOnce) {
  auto r = read_sglang_reading(fixture("sglang", "GET_metrics_spec_tp2.txt"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->running, 24);  // tp_rank / moe_ep_rank 0 and 1 report the same 24 requests
  EXPECT_EQ(r->waiting, 6);
  EXPECT_DOUBLE_EQ(*r->kv_usage, 0.91);
  EXPECT_DOUBLE_EQ(*r->preemptions_total, 4);  // num_retracted_requests_total, once
  EXPECT_DOUBLE_EQ(*r->prefix_cache_hit_rate, 0.35);
  EXPECT_DOUBLE_EQ(*r->spec_accept_length, 2.6);
  EXPECT_FALSE(r->spec_draft_tokens_total.has_value());
  EXPECT_FALSE(r->prefix_cache_queries_total.has_value());
}

TEST(ServerMetrics, SglangOlderAndUnderscoreLayouts) {
  auto r = read_sglang_reading(fixture("sglang", "GET_metrics.txt"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->running, 7);
  EXPECT_DOUBLE_EQ(*r->kv_usage, 0.12);
  EXPECT_FALSE(r->preemptions_total.has_value());  // no retraction counter in this layout
  EXPECT_FALSE(r->spec_accept_length.has_value());

  auto dp = read_sglang_reading(fixture("sglang", "GET_metrics_dp.txt"));
  ASSERT_TRUE(dp.has_value());
  EXPECT_EQ(dp->running, 5);
  EXPECT_EQ(dp->waiting, 1);
  // Data-parallel ranks are distinct engines: usage is the fullest one's, a rate their mean.
  auto two = read_sglang_reading(
      "sglang_num_running_reqs{dp_rank=\"0\",tp_rank=\"0\"} 1\nsglang_num_running_reqs{dp_rank=\"1\",tp_rank=\"0\"} 1\n"
      "sglang_token_usage{dp_rank=\"0\",tp_rank=\"0\"} 0.2\nsglang_token_usage{dp_rank=\"1\",tp_rank=\"0\"} 0.6\n"
      "sglang_cache_hit_rate{dp_rank=\"0\",tp_rank=\"0\"} 0.1\nsglang_cache_hit_rate{dp_rank=\"1\",tp_rank=\"0\"} 0.3\n");
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->running, 2);
  EXPECT_DOUBLE_EQ(*two->kv_usage, 0.6);
  EXPECT_DOUBLE_EQ(*two->prefix_cache_hit_rate, 0.2);
}

TEST(ServerMetrics, LlamaCppCurrentBuildCountsCachedPromptTokensApart) {
  auto r = read_llamacpp_metrics_reading(fixture("llamacpp", "GET_metrics_spec.txt"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->running, 2);
  EXPECT_EQ(r->waiting, 0);
  EXPECT_FALSE(r->kv_usage.has_value());
  EXPECT_DOUBLE_EQ(*r->prefix_cache_hits_total, 20480);
  EXPECT_DOUBLE_EQ(*r->prefix_cache_queries_total, 20480 + 61440);
  EXPECT_DOUBLE_EQ(*r->spec_draft_tokens_total, 16000);
  EXPECT_DOUBLE_EQ(*r->spec_accepted_tokens_total, 9800);
  EXPECT_FALSE(r->preemptions_total.has_value());
}

TEST(ServerMetrics, LlamaCppCapturedFromDebiansBuild) {
  // The llama-server the end-to-end tests run (Debian's b11669), captured idle and busy.
  auto idle = read_llamacpp_metrics_reading(fixture("llamacpp", "GET_metrics_b11669_idle.txt"));
  ASSERT_TRUE(idle.has_value());
  EXPECT_EQ(idle->running, 0);
  EXPECT_EQ(idle->waiting, 0);
  EXPECT_DOUBLE_EQ(*idle->prefix_cache_queries_total, 0);
  EXPECT_DOUBLE_EQ(*idle->spec_draft_tokens_total, 0);
  auto busy = read_llamacpp_metrics_reading(fixture("llamacpp", "GET_metrics_b11669_busy.txt"));
  ASSERT_TRUE(busy.has_value());
  EXPECT_EQ(busy->running, 2);
  EXPECT_EQ(busy->waiting, 1);
  EXPECT_DOUBLE_EQ(*busy->prefix_cache_hits_total, 39);
  EXPECT_DOUBLE_EQ(*busy->prefix_cache_queries_total, 39 + 81);
  EXPECT_DOUBLE_EQ(*busy->spec_accepted_tokens_total, 0);  // no draft model: the counters exist, at 0
  EXPECT_FALSE(busy->kv_usage.has_value()) << "this build has no kv_cache_usage_ratio";
  EXPECT_FALSE(busy->preemptions_total.has_value());
}

TEST(ServerMetrics, LlamaCppOlderBuildsKvRatioAndSlots) {
  auto r = read_llamacpp_metrics_reading(fixture("llamacpp", "GET_metrics_kv_2024.txt"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->running, 2);
  EXPECT_EQ(r->waiting, 1);
  EXPECT_DOUBLE_EQ(*r->kv_usage, 0.46);
  EXPECT_FALSE(r->prefix_cache_queries_total.has_value()) << "no cached-token counter: hits unknown";

  auto plain = read_llamacpp_metrics_reading(fixture("llamacpp", "GET_metrics.txt"));
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(plain->kv_usage.has_value());
  EXPECT_FALSE(plain->prefix_cache_hits_total.has_value());

  auto slots = read_llamacpp_slots_reading(fixture("llamacpp", "GET_slots.json"));
  ASSERT_TRUE(slots.has_value());
  EXPECT_EQ(slots->running, 2);
  EXPECT_FALSE(slots->waiting.has_value());
  EXPECT_FALSE(slots->kv_usage.has_value());
}

TEST(ServerMetrics, TgiHasOnlyItsBatchAndQueue) {
  auto r = read_tgi_reading(fixture("tgi", "GET_metrics_busy.txt"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->running, 6);
  EXPECT_EQ(r->waiting, 3);
  EXPECT_FALSE(r->kv_usage.has_value());
  EXPECT_FALSE(r->preemptions_total.has_value());
  EXPECT_FALSE(r->prefix_cache_hit_rate.has_value());
  auto fresh = read_tgi_reading(fixture("tgi", "GET_metrics.txt"));
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(fresh->running, 0);  // never batched yet
}

TEST(ServerMetrics, LmDeploy) {
  auto r = read_lmdeploy_reading(fixture("lmdeploy", "GET_metrics_0.16.txt"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->running, 9);
  EXPECT_EQ(r->waiting, 1);
  EXPECT_DOUBLE_EQ(*r->kv_usage, 0.57);
  EXPECT_DOUBLE_EQ(*r->prefix_cache_hit_rate, 0.25);
  auto older = read_lmdeploy_reading(fixture("lmdeploy", "GET_metrics.txt"));
  ASSERT_TRUE(older.has_value());
  EXPECT_DOUBLE_EQ(*older->kv_usage, 0.08);
  EXPECT_FALSE(older->prefix_cache_hit_rate.has_value());
}

TEST(ServerMetrics, TheLoadIsTheReadingsRunningAndWaiting) {
  const std::vector<std::tuple<LoadSource, std::string, std::string>> bodies = {
      {LoadSource::VllmMetrics, "vllm", "GET_metrics_busy.txt"},
      {LoadSource::VllmMetrics, "vllm", "GET_metrics.txt"},
      {LoadSource::VllmMetrics, "vllm", "GET_metrics_v0.9_spec.txt"},
      {LoadSource::SglangMetrics, "sglang", "GET_metrics_spec_tp2.txt"},
      {LoadSource::SglangMetrics, "sglang", "GET_metrics_dp.txt"},
      {LoadSource::LlamaCppMetrics, "llamacpp", "GET_metrics_spec.txt"},
      {LoadSource::LlamaCppMetrics, "llamacpp", "GET_metrics_b11669_busy.txt"},
      {LoadSource::LlamaCppSlots, "llamacpp", "GET_slots.json"},
      {LoadSource::TgiMetrics, "tgi", "GET_metrics.txt"},
      {LoadSource::LmDeployMetrics, "lmdeploy", "GET_metrics_0.16.txt"},
  };
  for (const auto& [source, engine, file] : bodies) {
    const std::string body = fixture(engine, file);
    auto reading = read_reading(source, body);
    auto load = read_load(source, body);
    ASSERT_TRUE(reading.has_value()) << file;
    ASSERT_TRUE(load.has_value()) << file;
    EXPECT_EQ(load->running, reading->running) << file;
    EXPECT_EQ(load->waiting, reading->waiting) << file;
  }
  EXPECT_FALSE(load_of(ServerReading{}).has_value());
  EXPECT_FALSE(read_reading(LoadSource::SglangMetrics, fixture("vllm", "GET_metrics_busy.txt")).has_value());
}

TEST(ServerMetricsReader, OneGetPerReadingThroughTheDetectedSource) {
  FakeServer server;
  server.bodies["/metrics"] = fixture("vllm", "GET_metrics_v0.9_spec.txt");
  auto reader = ServerLoadReader::detect(EngineKind::Vllm, "http://fixture", {}, server.transport());
  ASSERT_TRUE(reader.has_value());
  const int after_detect = server.requests;
  auto r = reader->read_reading();
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(server.requests, after_detect + 1);
  EXPECT_EQ(r->running, 12);
  EXPECT_DOUBLE_EQ(*r->kv_usage, 0.8734);
  EXPECT_DOUBLE_EQ(*r->preemptions_total, 7);

  server.bodies["/metrics"] = "# metrics disabled\n";
  auto bad = reader->read_reading();
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::Protocol);
  EXPECT_NE(bad.error().message.find("vllm:num_requests_running"), std::string::npos) << bad.error().message;
  server.bodies.clear();
  bad = reader->read_reading();
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::Http);
  EXPECT_NE(bad.error().message.find("HTTP 404"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace sm
