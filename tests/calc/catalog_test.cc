#include "calc/catalog.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace sm::calc {
namespace {

Catalog builtin() {
  auto c = Catalog::builtin();
  EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().message);
  return c ? *c : Catalog{};
}

TEST(CalcCatalog, BuiltinHasTheIssueEntriesEachWithASource) {
  Catalog c = builtin();
  for (const char* id : {"rtx3090", "rtx4090", "h100-sxm", "a100-80gb", "m3-ultra"}) EXPECT_TRUE(c.find_gpu(id)) << id;
  for (const char* id : {"qwen3.5-4b", "qwen3-4b", "llama-3.1-8b", "qwen3-30b-a3b", "qwen3-next-80b-a3b"})
    EXPECT_TRUE(c.find_model(id)) << id;
  for (const char* id : {"awq-4bit", "bf16", "fp8", "q4_k_m"}) EXPECT_TRUE(c.find_quant(id)) << id;
  for (const char* id : {"vllm", "sglang", "llamacpp"}) EXPECT_TRUE(c.find_engine(id)) << id;
  for (const auto& g : c.gpus()) {
    EXPECT_FALSE(g.source.empty()) << g.id;
    EXPECT_GT(g.bandwidth_bytes_per_s, 0) << g.id;
    EXPECT_LE(g.usable_memory_bytes, g.memory_bytes) << g.id;
  }
  for (const auto& m : c.models()) EXPECT_FALSE(m.source.empty()) << m.id;
  for (const auto& q : c.quants()) EXPECT_FALSE(q.source.empty()) << q.id;
  for (const auto& e : c.engines()) {
    EXPECT_FALSE(e.source.empty()) << e.id;
    EXPECT_LE(e.bandwidth_efficiency, 0.95) << e.id;  // the issue's plausibility bound
    EXPECT_LE(e.decode_compute_efficiency, 1.0) << e.id;
    EXPECT_LE(e.prefill_compute_efficiency, 1.0) << e.id;
  }
}

TEST(CalcCatalog, FindsByAliasIgnoringCasePunctuationAndOrg) {
  Catalog c = builtin();
  EXPECT_EQ(c.find_gpu("RTX 3090")->id, "rtx3090");
  EXPECT_EQ(c.find_gpu("GeForce RTX 3090")->id, "rtx3090");
  EXPECT_EQ(c.find_model("Qwen/Qwen3.5-4B")->id, "qwen3.5-4b");
  EXPECT_EQ(c.find_model("meta-llama/Llama-3.1-8B-Instruct")->id, "llama-3.1-8b");
  EXPECT_EQ(c.find_engine("llama.cpp")->id, "llamacpp");
  EXPECT_EQ(c.find_quant("AWQ")->id, "awq-4bit");
}

TEST(CalcCatalog, UnknownNameListsCloseMatches) {
  Catalog c = builtin();
  auto g = c.find_gpu("rtx309");
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().message.find("rtx3090"), std::string::npos) << g.error().message;
  EXPECT_NE(g.error().message.find("--gpu-file"), std::string::npos);
  auto m = c.find_model("qwen3.5-4");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("qwen3.5-4b"), std::string::npos) << m.error().message;
}

TEST(CalcCatalog, UserEntryAddsAndReplaces) {
  Catalog c = builtin();
  const size_t before = c.gpus().size();
  ASSERT_TRUE(c.add_json(R"({"id": "my-gpu", "memory_gib": 16, "bandwidth_gb_s": 500,
                             "tensor_16bit_tflops": 100, "source": "my datasheet"})",
                         "user.json", "gpus"));
  EXPECT_EQ(c.gpus().size(), before + 1);
  auto g = c.find_gpu("my-gpu");
  ASSERT_TRUE(g);
  EXPECT_DOUBLE_EQ(g->bandwidth_bytes_per_s, 500e9);
  EXPECT_EQ(g->usable_memory_bytes, static_cast<int64_t>(16 * kDefaultUsableMemoryFraction * 1024.0 * 1024 * 1024));
  // Same id again: replaced, not duplicated.
  ASSERT_TRUE(c.add_json(R"({"gpus": [{"id": "rtx3090", "memory_gib": 24, "bandwidth_gb_s": 1000,
                             "tensor_16bit_tflops": 142, "source": "overclocked"}]})",
                         "user2.json"));
  EXPECT_EQ(c.gpus().size(), before + 1);
  EXPECT_DOUBLE_EQ(c.find_gpu("rtx3090")->bandwidth_bytes_per_s, 1000e9);
}

TEST(CalcCatalog, BadDocumentsFailWithTheFileAndEntry) {
  Catalog c = builtin();
  auto not_json = c.add_json("{nope", "bad.json", "gpus");
  ASSERT_FALSE(not_json);
  EXPECT_NE(not_json.error().message.find("bad.json"), std::string::npos);

  auto missing = c.add_json(R"({"models": [{"id": "m", "layers": 2, "source": "x"}]})", "m.json");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("m.json: models[0] (\"m\")"), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find("full_attention_layers"), std::string::npos) << missing.error().message;

  auto typo = c.add_json(R"({"id": "g", "memory_gib": 8, "bandwith_gb_s": 100, "bandwidth_gb_s": 100,
                             "tensor_16bit_tflops": 10, "source": "x"})",
                         "t.json", "gpus");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message.find("unknown key \"bandwith_gb_s\""), std::string::npos) << typo.error().message;

  auto negative = c.add_json(R"({"id": "g", "memory_gib": -8, "bandwidth_gb_s": 100,
                                 "tensor_16bit_tflops": 10, "source": "x"})",
                             "n.json", "gpus");
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.error().message.find("memory_gib"), std::string::npos);

  auto hybrid_without_shape = c.add_json(
      R"({"id": "h", "layers": 4, "full_attention_layers": 1, "hidden_size": 64, "intermediate_size": 128,
          "q_heads": 2, "kv_heads": 1, "head_dim": 32, "vocab_size": 100, "max_position": 4096, "source": "x"})",
      "h.json", "models");
  ASSERT_FALSE(hybrid_without_shape);
  EXPECT_NE(hybrid_without_shape.error().message.find("linear_attention"), std::string::npos);

  auto no_file = c.add_file("/nonexistent/gpus.json");
  ASSERT_FALSE(no_file);
  EXPECT_EQ(no_file.error().code, ErrorCode::Io);
}

TEST(CalcCatalog, AddFileReadsAUserModel) {
  test::TempDir dir;
  {
    std::ofstream out(dir.file("model.json"));
    out << R"({"models": [{"id": "tiny-llama", "layers": 2, "full_attention_layers": 2, "hidden_size": 256,
              "intermediate_size": 512, "q_heads": 4, "kv_heads": 2, "head_dim": 64, "vocab_size": 1000,
              "max_position": 8192, "source": "test"}]})";
  }
  Catalog c = builtin();
  ASSERT_TRUE(c.add_file(dir.file("model.json")));
  auto m = c.find_model("tiny-llama");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kv_heads, 2);
}

TEST(CalcCatalog, ClosestNamesRanksContainmentFirst) {
  auto close = closest_names("3090", {"rtx4090", "rtx3090", "h100-sxm"});
  ASSERT_FALSE(close.empty());
  EXPECT_EQ(close.front(), "rtx3090");
  EXPECT_EQ(normalize_name("RTX 3090"), "rtx3090");
}

}  // namespace
}  // namespace sm::calc
