// Each engine's running / waiting counts from fixture responses, and which endpoint a run uses.
#include "engines/server_load.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& engine, const std::string& file) {
  return test::read_file(fs::path(SPEEDMATRIX_SOURCE_DIR) / "tests/engines/fixtures" / engine / file);
}

// Serves path -> body (200); anything else 404. Records every URL asked for.
struct FakeServer {
  std::map<std::string, std::string> bodies;
  std::vector<std::string> asked;
  HttpTransport transport() {
    return [this](const HttpRequest& req) -> Result<HttpResponse> {
      std::string path = req.url.substr(req.url.find('/', req.url.find("//") + 2));
      asked.push_back(path);
      if (auto it = bodies.find(path); it != bodies.end()) return HttpResponse{200, it->second, "text/plain"};
      return HttpResponse{404, "Not Found", "text/plain"};
    };
  }
};

TEST(ServerLoad, VllmSumsEnginesAndReadsWaiting) {
  auto load = read_vllm_load(fixture("vllm", "GET_metrics_busy.txt"));
  ASSERT_TRUE(load.has_value());
  EXPECT_EQ(load->running, 8);   // 5 + 3 over two data-parallel engines
  EXPECT_EQ(load->waiting, 2);
  EXPECT_FALSE(load->idle());
  auto idle = read_vllm_load(fixture("vllm", "GET_metrics_idle.txt"));
  ASSERT_TRUE(idle.has_value());
  EXPECT_TRUE(idle->idle());
  EXPECT_EQ(idle->waiting, 0);
}

TEST(ServerLoad, VllmWithoutTheGaugeIsNotALoad) {
  EXPECT_FALSE(read_vllm_load("vllm:cache_config_info{block_size=\"16\"} 1.0\n").has_value());
  EXPECT_FALSE(read_vllm_load("").has_value());
  // Only running reported (older builds' fixture): waiting unknown, still readable.
  auto load = read_vllm_load(fixture("vllm", "GET_metrics.txt"));
  ASSERT_TRUE(load.has_value());
  EXPECT_EQ(load->running, 0);
  EXPECT_FALSE(load->waiting.has_value());
}

TEST(ServerLoad, SglangCountsTensorParallelRanksOnce) {
  auto load = read_sglang_load(fixture("sglang", "GET_metrics.txt"));
  ASSERT_TRUE(load.has_value());
  EXPECT_EQ(load->running, 7);  // tp_rank 0 and 1 report the same 7 requests
  EXPECT_EQ(load->waiting, 4);
}

TEST(ServerLoad, SglangUnderscoreNamesAndDataParallelRanks) {
  auto load = read_sglang_load(fixture("sglang", "GET_metrics_dp.txt"));
  ASSERT_TRUE(load.has_value());
  EXPECT_EQ(load->running, 5);  // dp ranks hold different requests: summed
  EXPECT_EQ(load->waiting, 1);
  EXPECT_FALSE(read_sglang_load(fixture("vllm", "GET_metrics_busy.txt")).has_value());
}

TEST(ServerLoad, LlamaCppMetricsAndSlots) {
  auto metrics = read_llamacpp_metrics_load(fixture("llamacpp", "GET_metrics.txt"));
  ASSERT_TRUE(metrics.has_value());
  EXPECT_EQ(metrics->running, 4);
  EXPECT_EQ(metrics->waiting, 4);
  auto slots = read_llamacpp_slots_load(fixture("llamacpp", "GET_slots.json"));
  ASSERT_TRUE(slots.has_value());
  EXPECT_EQ(slots->running, 2);
  EXPECT_FALSE(slots->waiting.has_value());  // /slots does not show the queue
  EXPECT_EQ(read_llamacpp_slots_load(R"([{"id":0,"state":1},{"id":1,"state":0}])")->running, 1);  // older builds
  EXPECT_FALSE(read_llamacpp_slots_load(R"({"error":{"code":501,"message":"This server does not support slots endpoint."}})"));
  EXPECT_FALSE(read_llamacpp_slots_load("[{\"id\":0}]"));
}

TEST(ServerLoad, TgiQueueAndBatch) {
  auto busy = read_tgi_load(fixture("tgi", "GET_metrics_busy.txt"));
  ASSERT_TRUE(busy.has_value());
  EXPECT_EQ(busy->running, 6);
  EXPECT_EQ(busy->waiting, 3);
  // A server that never batched has no batch gauge yet: nothing running.
  auto fresh = read_tgi_load(fixture("tgi", "GET_metrics.txt"));
  ASSERT_TRUE(fresh.has_value());
  EXPECT_TRUE(fresh->idle());
  EXPECT_FALSE(read_tgi_load("tgi_request_count 3\n").has_value());
}

TEST(ServerLoad, LmDeploy) {
  auto load = read_lmdeploy_load(fixture("lmdeploy", "GET_metrics.txt"));
  ASSERT_TRUE(load.has_value());
  EXPECT_EQ(load->running, 2);
  EXPECT_EQ(load->waiting, 1);
}

TEST(ServerLoad, EnginesWithoutLoadEndpoints) {
  EXPECT_TRUE(load_sources_for(EngineKind::Ollama).empty());
  EXPECT_TRUE(load_sources_for(EngineKind::TensorRtLlm).empty());
  EXPECT_EQ(load_sources_for(EngineKind::LlamaCpp).size(), 2u);
  EXPECT_GT(load_sources_for(EngineKind::OpenAi).size(), 3u);
}

TEST(ServerLoadReader, LlamaCppFallsBackToSlotsWithoutMetrics) {
  FakeServer server;
  server.bodies["/slots"] = fixture("llamacpp", "GET_slots.json");
  auto reader = ServerLoadReader::detect(EngineKind::LlamaCpp, "http://fixture", {}, server.transport());
  ASSERT_TRUE(reader.has_value());
  EXPECT_EQ(reader->source(), LoadSource::LlamaCppSlots);
  auto load = reader->read();
  ASSERT_TRUE(load.has_value());
  EXPECT_EQ(load->running, 2);

  server.bodies["/metrics"] = fixture("llamacpp", "GET_metrics.txt");  // started with --metrics
  reader = ServerLoadReader::detect(EngineKind::LlamaCpp, "http://fixture", {}, server.transport());
  ASSERT_TRUE(reader.has_value());
  EXPECT_EQ(reader->source(), LoadSource::LlamaCppMetrics);
}

TEST(ServerLoadReader, UnknownServerIsTriedWithEveryFamilyOnOneRequest) {
  FakeServer server;
  server.bodies["/metrics"] = fixture("sglang", "GET_metrics.txt");
  auto reader = ServerLoadReader::detect(EngineKind::OpenAi, "http://fixture", {}, server.transport());
  ASSERT_TRUE(reader.has_value());
  EXPECT_EQ(reader->source(), LoadSource::SglangMetrics);
  EXPECT_EQ(server.asked.size(), 1u);  // one GET /metrics, parsed by each family in turn
}

TEST(ServerLoadReader, NoneWhenTheServerHasNoMetrics) {
  FakeServer server;  // everything 404
  EXPECT_FALSE(ServerLoadReader::detect(EngineKind::Vllm, "http://fixture", {}, server.transport()).has_value());
  EXPECT_FALSE(ServerLoadReader::detect(EngineKind::Ollama, "http://fixture", {}, server.transport()).has_value());
  EXPECT_TRUE(server.asked.size() == 1u && server.asked[0] == "/metrics");  // Ollama is not asked at all
}

TEST(ServerLoadReader, ReadErrorsSayWhy) {
  FakeServer server;
  server.bodies["/metrics"] = fixture("vllm", "GET_metrics_busy.txt");
  auto reader = ServerLoadReader::detect(EngineKind::Vllm, "http://fixture", {"Authorization: Bearer k"}, server.transport());
  ASSERT_TRUE(reader.has_value());
  server.bodies["/metrics"] = "# metrics disabled\n";
  auto bad = reader->read();
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("vllm:num_requests_running"), std::string::npos);
  server.bodies.clear();
  bad = reader->read();
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("HTTP 404"), std::string::npos);
}

}  // namespace
}  // namespace sm
