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

// Issue 13 part 4: the GPUs, models and quantisations users have.
TEST(CalcCatalog, BuiltinCoversTheBreadthIssue13Asks) {
  Catalog c = builtin();
  for (const char* id : {"rtx3060-12gb", "rtx4060ti-16gb", "rtx4070", "rtx4080", "rtx5060ti-16gb", "rtx5070", "rtx5080", "rtx-a4000",
                         "rtx-6000-ada", "l4", "l40", "t4", "mi210", "mi250-gcd", "mi300a", "jetson-agx-orin-64gb",
                         "m1-pro", "m1-max", "m1-ultra", "m2-pro", "m2-max", "m3-pro", "m4-pro"})
    EXPECT_TRUE(c.find_gpu(id)) << id;
  for (const char* id : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.2-1b", "qwen2.5-7b", "qwen2.5-72b",
                         "qwen3-235b-a22b", "qwen3.5-35b-a3b", "gemma-2-9b", "gemma-3-27b", "mixtral-8x7b",
                         "deepseek-v3", "gpt-oss-20b", "gpt-oss-120b", "phi-3-mini", "phi-4"})
    EXPECT_TRUE(c.find_model(id)) << id;
  for (const char* id : {"q4_0", "q4_k_s", "iq4_xs", "q5_k_s", "q6_k", "q8_0", "exl2-4.0bpw", "exl3-4.0bpw", "nvfp4", "mxfp4"})
    EXPECT_TRUE(c.find_quant(id)) << id;
  // The corpus's names resolve to the new entries.
  EXPECT_EQ(c.find_gpu("Apple M1 Max 32-core GPU 64GB")->id, "m1-max");
  EXPECT_EQ(c.find_gpu("RTX 6000 Ada 48GB")->id, "rtx-6000-ada");
  EXPECT_EQ(c.find_gpu("RTX 4080 16GB")->id, "rtx4080");
  EXPECT_EQ(c.find_model("Llama-2-70B")->id, "llama-2-70b");
  EXPECT_EQ(c.find_quant("Q4_0")->id, "q4_0");
}

// An entry's own display name finds it: "AMD Instinct MI300X" (the catalog's name for mi300x, and
// the name an AMD server reports) matched nothing, so uploads on it were never checked.
TEST(CalcCatalog, EveryEntryIsFoundByItsDisplayName) {
  Catalog c = builtin();
  for (const auto& g : c.gpus()) EXPECT_EQ(c.find_gpu(g.name)->id, g.id) << g.name;
  for (const auto& m : c.models()) EXPECT_EQ(c.find_model(m.name)->id, m.id) << m.name;
  for (const auto& q : c.quants()) EXPECT_EQ(c.find_quant(q.name)->id, q.id) << q.name;
  EXPECT_EQ(c.find_gpu("AMD Instinct MI300X")->id, "mi300x");
}

// The issue suspected the RTX PRO 6000's 16-bit figure was half the real one: its datasheet's
// 4,000 AI TOPS (FP4, 2:4 sparse) give 2,000 dense FP4, 1,000 FP8 and 500 FP16 with FP32 accumulate.
TEST(CalcCatalog, RtxPro6000CarriesItsDatasheetRates) {
  auto g = builtin().find_gpu("rtx-pro-6000");
  ASSERT_TRUE(g);
  EXPECT_DOUBLE_EQ(g->tensor_16bit_flops, 500e12);
  EXPECT_DOUBLE_EQ(*g->tensor_8bit_flops, 1000e12);
  EXPECT_DOUBLE_EQ(*g->tensor_4bit_flops, 2000e12);
  EXPECT_NE(g->source.find("4,000 AI TOPS"), std::string::npos);
}

// Where Blackwell GeForce rates are derived from "AI TOPS" the ratios hold: FP4 = 2 × FP8 = 4 × FP16.
TEST(CalcCatalog, BlackwellGeforceRatesFollowTheWhitepaperRatios) {
  Catalog c = builtin();
  for (const char* id : {"rtx5060ti-16gb", "rtx5070", "rtx5070ti", "rtx5080", "rtx5090"}) {
    auto g = c.find_gpu(id);
    ASSERT_TRUE(g && g->tensor_8bit_flops && g->tensor_4bit_flops) << id;
    EXPECT_NEAR(*g->tensor_4bit_flops / *g->tensor_8bit_flops, 2.0, 0.01) << id;
    EXPECT_NEAR(*g->tensor_8bit_flops / g->tensor_16bit_flops, 2.0, 0.01) << id;
  }
}

TEST(CalcCatalog, RuleFieldsAreChecked) {
  Catalog c = builtin();
  auto bad_format = c.add_json(R"({"id": "g", "memory_gib": 8, "bandwidth_gb_s": 100, "tensor_16bit_tflops": 10,
      "tensor_8bit_tflops": 20, "tensor_8bit_formats": ["fp6"], "source": "t"})", "g.json", "gpus");
  ASSERT_FALSE(bad_format);
  EXPECT_NE(bad_format.error().message.find("fp6"), std::string::npos) << bad_format.error().message;
  auto four_alone = c.add_json(R"({"id": "g", "memory_gib": 8, "bandwidth_gb_s": 100, "tensor_16bit_tflops": 10,
      "tensor_4bit_tflops": 40, "source": "t"})", "g.json", "gpus");
  EXPECT_FALSE(four_alone);
  auto bad_math = c.add_json(R"({"id": "q", "weight_bits": 4, "tensor_math": "int4", "source": "t"})", "q.json", "quants");
  ASSERT_FALSE(bad_math);
  EXPECT_NE(bad_math.error().message.find("tensor_math"), std::string::npos);
  auto bad_mla = c.add_json(R"({"id": "m", "layers": 2, "full_attention_layers": 2, "hidden_size": 64,
      "intermediate_size": 128, "q_heads": 2, "kv_heads": 2, "head_dim": 32, "vocab_size": 100, "max_position": 64,
      "mla": {"kv_lora_rank": 16}, "source": "t"})", "m.json", "models");
  ASSERT_FALSE(bad_mla);
  EXPECT_NE(bad_mla.error().message.find("qk_nope_head_dim"), std::string::npos) << bad_mla.error().message;
  // A user GPU without formats keeps the old behaviour: its 8-bit figure serves any 8-bit quantisation.
  ASSERT_TRUE(c.add_json(R"({"id": "lab", "memory_gib": 8, "bandwidth_gb_s": 100, "tensor_16bit_tflops": 10,
      "tensor_8bit_tflops": 20, "source": "t"})", "lab.json", "gpus"));
  EXPECT_EQ(c.find_gpu("lab")->backend, "cuda");
  EXPECT_EQ(c.find_gpu("lab")->dies, 1);  // not stated: one die
  // Dies: a whole number from 1; Apple's Ultra entries are two Max dies.
  auto no_dies = c.add_json(R"({"id": "g", "memory_gib": 8, "bandwidth_gb_s": 100, "tensor_16bit_tflops": 10,
      "dies": 0, "source": "t"})", "g.json", "gpus");
  ASSERT_FALSE(no_dies);
  EXPECT_NE(no_dies.error().message.find("dies"), std::string::npos) << no_dies.error().message;
  for (const char* id : {"m1-ultra", "m2-ultra", "m3-ultra"}) EXPECT_EQ(c.find_gpu(id)->dies, 2) << id;
  for (const char* id : {"m3-max", "rtx4090", "h100-sxm"}) EXPECT_EQ(c.find_gpu(id)->dies, 1) << id;
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

TEST(CalcCatalog, AUserGpuIsClassedByItsSpecsNotDatacenterByDefault) {
  test::TempDir dir;
  {
    std::ofstream out(dir.file("gpus.json"));
    out << R"({"gpus": [
      {"id": "gddr-card", "memory_gib": 24, "bandwidth_gb_s": 960, "tensor_16bit_tflops": 120, "source": "test"},
      {"id": "big-gddr", "memory_gib": 48, "bandwidth_gb_s": 864, "tensor_16bit_tflops": 180, "source": "test"},
      {"id": "hbm-part", "memory_gib": 192, "bandwidth_gb_s": 5300, "tensor_16bit_tflops": 1300, "source": "test"},
      {"id": "named", "name": "NVIDIA GeForce RTX 5090 Ti", "memory_gib": 48, "bandwidth_gb_s": 2000,
       "tensor_16bit_tflops": 400, "source": "test"},
      {"id": "declared", "memory_gib": 24, "bandwidth_gb_s": 960, "tensor_16bit_tflops": 120, "class": "datacenter",
       "source": "test"}]})";
  }
  Catalog c = builtin();
  ASSERT_TRUE(c.add_file(dir.file("gpus.json")));
  EXPECT_EQ(gpu_class(c.find_gpu("gddr-card").value()), "geforce");
  EXPECT_EQ(gpu_class(c.find_gpu("big-gddr").value()), "workstation");
  EXPECT_EQ(gpu_class(c.find_gpu("hbm-part").value()), "datacenter");
  EXPECT_EQ(gpu_class(c.find_gpu("named").value()), "geforce");  // the name says it
  EXPECT_EQ(gpu_class(c.find_gpu("declared").value()), "datacenter");
  // The built-in catalog keeps its rule by name: an L40S is a data-centre GPU with GDDR memory.
  EXPECT_EQ(gpu_class(builtin().find_gpu("h100-sxm").value()), "datacenter");
  EXPECT_EQ(gpu_class(builtin().find_gpu("rtx3090").value()), "geforce");
  // A class that is none of the four is refused.
  std::ofstream(dir.file("bad.json")) << R"({"gpus": [{"id": "x", "memory_gib": 24, "bandwidth_gb_s": 960,
      "tensor_16bit_tflops": 120, "class": "gaming", "source": "test"}]})";
  auto bad = c.add_file(dir.file("bad.json"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("unknown class \"gaming\""), std::string::npos);
}

TEST(CalcCatalog, AGpuByItsFiguresIsAddedAndClassed) {
  Catalog c = builtin();
  auto id = c.add_gpu_figures("Lab Card 32G", 32, 1000, 200, "");
  ASSERT_TRUE(id) << id.error().message;
  const GpuSpec g = c.find_gpu(*id).value();
  EXPECT_EQ(g.name, "Lab Card 32G");
  EXPECT_DOUBLE_EQ(g.bandwidth_bytes_per_s, 1000e9);
  EXPECT_DOUBLE_EQ(g.tensor_16bit_flops, 200e12);
  EXPECT_EQ(g.memory_bytes, int64_t{32} << 30);
  EXPECT_EQ(gpu_class(g), "geforce");
  EXPECT_EQ(gpu_class(c.find_gpu(c.add_gpu_figures("Lab Card 32G", 32, 1000, 200, "workstation").value()).value()),
            "workstation");
  EXPECT_FALSE(c.add_gpu_figures("Zero", 0, 1000, 200, ""));  // impossible figures fail like a file's
}

TEST(CalcCatalog, ClosestNamesRanksContainmentFirst) {
  auto close = closest_names("3090", {"rtx4090", "rtx3090", "h100-sxm"});
  ASSERT_FALSE(close.empty());
  EXPECT_EQ(close.front(), "rtx3090");
  EXPECT_EQ(normalize_name("RTX 3090"), "rtx3090");
}

}  // namespace
}  // namespace sm::calc
