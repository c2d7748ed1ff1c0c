// Engine detection and capacity from fixtures written from each engine's documented responses.
#include "engines/probe.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

// Serves GET <path> from fixtures/<engine>/GET_<path with / -> _>.{json,txt}; 404 otherwise.
HttpTransport fixture_transport(const std::string& engine, std::map<std::string, std::string> overrides = {}) {
  const fs::path dir = fs::path(SPEEDMATRIX_SOURCE_DIR) / "tests/engines/fixtures" / engine;
  return [dir, overrides](const HttpRequest& req) -> Result<HttpResponse> {
    std::string path = req.url.substr(req.url.find('/', req.url.find("//") + 2));
    std::string name = "GET" + path;
    for (auto& c : name)
      if (c == '/') c = '_';
    if (auto it = overrides.find(path); it != overrides.end()) name = it->second;
    for (const char* ext : {".json", ".txt", ""}) {
      fs::path file = dir / (name + ext);
      if (fs::exists(file)) return HttpResponse{200, test::read_file(file), ""};
    }
    return HttpResponse{404, R"({"detail":"Not Found"})", "application/json"};
  };
}

ProbeResult probe(const std::string& engine, std::map<std::string, std::string> overrides = {},
                  const std::string& model = "") {
  auto r = probe_server({"http://fixture", {}, model}, fixture_transport(engine, std::move(overrides)));
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return r ? *r : ProbeResult{};
}

TEST(Probe, Vllm) {
  ProbeResult p = probe("vllm");
  EXPECT_EQ(p.kind, EngineKind::Vllm);
  EXPECT_EQ(p.engine.kind, "vllm");
  EXPECT_EQ(p.engine.version, "0.11.0");
  EXPECT_EQ(p.engine.model, "bench");
  EXPECT_EQ(p.engine.model_path, "cyankiwi/Qwen3.5-4B-AWQ-4bit");
  EXPECT_EQ(*p.engine.max_model_len, 262144);
  EXPECT_EQ(*p.engine.kv_capacity_tokens, 33125 * 16);
  EXPECT_EQ(p.engine.kv_capacity_source, "/metrics vllm:cache_config_info num_gpu_blocks x block_size");
  EXPECT_TRUE(*p.engine.prefix_caching);
  EXPECT_TRUE(p.engine.tokenize_endpoint);
  EXPECT_TRUE(p.engine.forces_output_length);
  EXPECT_FALSE(p.simulated);
}

TEST(Probe, VllmPrefersKvCacheSizeTokensAndOneEngine) {
  ProbeResult p = probe("vllm", {{"/metrics", "GET_metrics_dp"}});
  EXPECT_EQ(*p.engine.kv_capacity_tokens, 529000);  // per engine: a request lives in one
  EXPECT_EQ(p.engine.kv_capacity_source, "/metrics vllm:cache_config_info kv_cache_size_tokens");
}

TEST(Probe, Sglang) {
  ProbeResult p = probe("sglang");
  EXPECT_EQ(p.kind, EngineKind::Sglang);
  EXPECT_EQ(p.engine.version, "0.5.6");
  EXPECT_EQ(*p.engine.kv_capacity_tokens, 412345);
  EXPECT_EQ(*p.engine.max_model_len, 40960);
  EXPECT_EQ(*p.engine.slots, 256);
  EXPECT_TRUE(*p.engine.prefix_caching);
}

TEST(Probe, LlamaCpp) {
  ProbeResult p = probe("llamacpp");
  EXPECT_EQ(p.kind, EngineKind::LlamaCpp);
  EXPECT_EQ(p.engine.build, "b6500-9c8d2ed");
  EXPECT_EQ(p.engine.model, "tiny.gguf");
  EXPECT_EQ(*p.engine.slots, 4);
  EXPECT_EQ(*p.engine.max_model_len, 4096);            // per-slot window
  EXPECT_EQ(*p.engine.kv_capacity_tokens, 4096 * 4);   // every slot's window
  EXPECT_TRUE(p.engine.forces_output_length);
}

TEST(Probe, LlamaCppUnifiedFromLog) {
  EXPECT_EQ(llamacpp_kv_unified_from_log("I srv load_model: initializing, n_slots = 4, n_ctx_slot = 4096, kv_unified = 'false'"),
            std::optional<bool>(false));
  EXPECT_EQ(llamacpp_kv_unified_from_log("x kv_unified = 'true'\n"), std::optional<bool>(true));
  EXPECT_FALSE(llamacpp_kv_unified_from_log("nothing here").has_value());
}

TEST(Probe, Tgi) {
  ProbeResult p = probe("tgi");
  EXPECT_EQ(p.kind, EngineKind::Tgi);
  EXPECT_EQ(p.engine.version, "3.3.6-dev0");
  EXPECT_EQ(*p.engine.kv_capacity_tokens, 180224);
  EXPECT_EQ(*p.engine.max_model_len, 8192);
  EXPECT_FALSE(p.engine.forces_output_length);  // TGI cannot ignore EOS: cells get flagged
  bool noted = false;
  for (const auto& n : p.notes) noted |= n.find("cannot ignore end-of-sequence") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Probe, Ollama) {
  ProbeResult p = probe("ollama");
  EXPECT_EQ(p.kind, EngineKind::Ollama);
  EXPECT_EQ(p.engine.version, "0.12.3");
  EXPECT_EQ(*p.engine.max_model_len, 8192);
  EXPECT_FALSE(p.engine.kv_capacity_tokens.has_value());
  EXPECT_FALSE(p.engine.forces_output_length);
  EXPECT_FALSE(p.engine.tokenize_endpoint);
}

TEST(Probe, TensorRtLlm) {
  ProbeResult p = probe("trtllm");
  EXPECT_EQ(p.kind, EngineKind::TensorRtLlm);
  EXPECT_EQ(*p.engine.kv_capacity_tokens, 10240 * 32);
}

TEST(Probe, GenericOpenAi) {
  ProbeResult p = probe("openai");
  EXPECT_EQ(p.kind, EngineKind::OpenAi);
  EXPECT_EQ(p.engine.model, "gpt-like");
  EXPECT_FALSE(p.engine.kv_capacity_tokens.has_value());
  EXPECT_FALSE(p.engine.forces_output_length);
}

TEST(Probe, UnknownModelNamesTheServedOnes) {
  auto r = probe_server({"http://fixture", {}, "nope"}, fixture_transport("vllm"));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("bench"), std::string::npos);
}

TEST(Probe, NotAnOpenAiServer) {
  auto r = probe_server({"http://fixture", {}, ""}, fixture_transport("nonexistent"));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("not an OpenAI-compatible server"), std::string::npos);
}

TEST(Probe, ApiKeyRequired) {
  HttpTransport t = [](const HttpRequest&) -> Result<HttpResponse> { return HttpResponse{401, "", ""}; };
  auto r = probe_server({"http://fixture", {}, ""}, t);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("--api-key"), std::string::npos);
}

// Its messages are printed: they name the URL without the credentials in it (issue 31 point 5).
TEST(Probe, MessagesNameTheUrlWithoutItsSecrets) {
  const std::string url = "http://alice:Hq2Lw9vRt4@gpu-box:8000?api_key=Xt5Bn8Kd3Wq";
  HttpTransport down = [&](const HttpRequest&) -> Result<HttpResponse> {
    return fail(ErrorCode::Network, "connect to " + url + " refused");
  };
  HttpTransport denied = [](const HttpRequest&) -> Result<HttpResponse> { return HttpResponse{401, "", ""}; };
  HttpTransport odd = [](const HttpRequest&) -> Result<HttpResponse> { return HttpResponse{200, "", "{}"}; };
  for (const HttpTransport& t : {down, denied, odd}) {
    auto r = probe_server({url, {}, ""}, t);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().message.find("Hq2Lw9vRt4"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find("Xt5Bn8Kd3Wq"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("gpu-box"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace sm
