// A model from its Hugging Face config.json, and a GPU by its figures (issue 35 point 4): the configs of four catalog models
// — their fields as the catalog entries' sources quote them — read back to the catalog's shapes
// (the same parameter and KV byte counts); what the reader refuses; and `calc` / `sim` with
// --model-config through the real binary.
#include "calc/hf_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "calc/model_shape.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace sm::calc {
namespace {

using nlohmann::json;

// The shape `config` reads as, through a catalog (so it is checked like any entry).
ModelShape read_shape(const json& config) {
  auto catalog = Catalog::builtin();
  EXPECT_TRUE(catalog);
  auto entry = model_entry_from_hf_config(config, "from-config", "config.json");
  EXPECT_TRUE(entry) << (entry ? "" : entry.error().message);
  if (!entry) return {};
  auto ok = catalog->add_json(json{{"models", json::array({*entry})}}.dump(), "config.json", "models");
  EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
  return catalog->find_model("from-config").value_or(ModelShape{});
}

void expect_same_shape(const ModelShape& read, const std::string& catalog_id) {
  const ModelShape want = Catalog::builtin()->find_model(catalog_id).value();
  const ParamCounts a = count_params(read), b = count_params(want);
  EXPECT_DOUBLE_EQ(a.total, b.total) << catalog_id;
  EXPECT_DOUBLE_EQ(a.active_linear, b.active_linear) << catalog_id;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(read, 2), kv_bytes_per_token(want, 2)) << catalog_id;
  EXPECT_EQ(read.full_attention_layers, want.full_attention_layers) << catalog_id;
  EXPECT_EQ(read.sliding_window_layers, want.sliding_window_layers) << catalog_id;
  EXPECT_EQ(read.max_position, want.max_position) << catalog_id;
}

TEST(HfConfig, DenseGqaReadsAsTheCatalogsLlama) {
  const json llama = {{"architectures", {"LlamaForCausalLM"}}, {"num_hidden_layers", 32}, {"hidden_size", 4096},
                      {"intermediate_size", 14336}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
                      {"vocab_size", 128256}, {"tie_word_embeddings", false}, {"max_position_embeddings", 131072}};
  expect_same_shape(read_shape(llama), "llama-3.1-8b");  // head_dim from hidden ÷ heads
}

TEST(HfConfig, MoeReadsAsTheCatalogsQwen3A3B) {
  // Qwen-MoE gives intermediate_size too (6,144) though every layer's MLP is MoE: not counted.
  const json qwen = {{"num_hidden_layers", 48}, {"hidden_size", 2048}, {"intermediate_size", 6144},
                     {"num_attention_heads", 32}, {"num_key_value_heads", 4}, {"head_dim", 128},
                     {"num_experts", 128}, {"num_experts_per_tok", 8}, {"moe_intermediate_size", 768},
                     {"vocab_size", 151936}, {"tie_word_embeddings", false}, {"max_position_embeddings", 40960}};
  expect_same_shape(read_shape(qwen), "qwen3-30b-a3b");
}

TEST(HfConfig, MlaSharedExpertsAndDenseLeadingLayersReadAsTheCatalogsDeepSeekV3) {
  const json deepseek = {{"num_hidden_layers", 61}, {"hidden_size", 7168}, {"intermediate_size", 18432},
                         {"num_attention_heads", 128}, {"num_key_value_heads", 128}, {"vocab_size", 129280},
                         {"tie_word_embeddings", false}, {"max_position_embeddings", 163840},
                         {"n_routed_experts", 256}, {"num_experts_per_tok", 8}, {"moe_intermediate_size", 2048},
                         {"n_shared_experts", 1}, {"first_k_dense_replace", 3}, {"q_lora_rank", 1536},
                         {"kv_lora_rank", 512}, {"qk_nope_head_dim", 128}, {"qk_rope_head_dim", 64},
                         {"v_head_dim", 128}};
  const ModelShape read = read_shape(deepseek);
  EXPECT_TRUE(read.mla.present());
  EXPECT_EQ(read.moe_layers, 58);
  expect_same_shape(read, "deepseek-v3");
}

TEST(HfConfig, LayerTypesGiveSlidingWindowLayersAsTheCatalogsGptOss) {
  json types = json::array();
  for (int i = 0; i < 24; ++i) types.push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
  const json gpt_oss = {{"num_hidden_layers", 24}, {"hidden_size", 2880}, {"intermediate_size", 2880},
                        {"num_attention_heads", 64}, {"num_key_value_heads", 8}, {"head_dim", 64},
                        {"num_local_experts", 32}, {"num_experts_per_tok", 4}, {"vocab_size", 201088},
                        {"tie_word_embeddings", false}, {"max_position_embeddings", 131072},
                        {"sliding_window", 128}, {"layer_types", types}};
  expect_same_shape(read_shape(gpt_oss), "gpt-oss-20b");
}

TEST(HfConfig, RefusesWhatItCannotReadWithAClearError) {
  auto missing = model_entry_from_hf_config(json{{"hidden_size", 4096}}, "x", "my/config.json");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("my/config.json: no \"num_hidden_layers\""), std::string::npos);
  json linear = {{"num_hidden_layers", 2}, {"hidden_size", 64}, {"num_attention_heads", 4}, {"vocab_size", 100},
                 {"max_position_embeddings", 1024}, {"intermediate_size", 128},
                 {"layer_types", {"linear_attention", "full_attention"}}};
  auto refused = model_entry_from_hf_config(linear, "x", "config.json");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("\"linear_attention\""), std::string::npos);
  EXPECT_NE(refused.error().message.find("--model-file"), std::string::npos);
  EXPECT_FALSE(model_entry_from_hf_config(json::array(), "x", "config.json"));
  // A multimodal config's decoder is its text_config.
  const json vl = {{"text_config", {{"num_hidden_layers", 32}, {"hidden_size", 4096}, {"intermediate_size", 14336},
                                     {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"vocab_size", 128256},
                                     {"max_position_embeddings", 131072}}}};
  EXPECT_EQ(read_shape(vl).layers, 32);
}

TEST(HfConfig, AFileIsNamedByItsModelOrItsFolder) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path() / "My-Llama");
  const json llama = {{"num_hidden_layers", 32}, {"hidden_size", 4096}, {"intermediate_size", 14336},
                      {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"vocab_size", 128256},
                      {"max_position_embeddings", 131072}};
  std::ofstream(dir.path() / "My-Llama/config.json") << llama.dump();
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  auto id = add_hf_config(*catalog, (dir.path() / "My-Llama/config.json").string());
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*id, "My-Llama");
  EXPECT_TRUE(catalog->find_model("my-llama"));
  json named = llama;
  named["_name_or_path"] = "someone/Tuned-8B";
  std::ofstream(dir.file("config.json")) << named.dump();
  EXPECT_EQ(add_hf_config(*catalog, dir.file("config.json")).value_or(""), "Tuned-8B");
  std::ofstream(dir.file("broken.json")) << "{not json";
  EXPECT_FALSE(add_hf_config(*catalog, dir.file("broken.json")));
  EXPECT_FALSE(add_hf_config(*catalog, dir.file("absent.json")));
}

// `speedmatrix ARGS` in `dir`; its exit status, and what it printed into `out`.
int run_binary(const test::TempDir& dir, const std::string& args, std::string& out) {
  const test::BinaryOutcome r = test::run_binary_in(dir.path().string(), args);
  out = r.output;
  return r.exit_code;
}

TEST(HfConfig, CalcAndSimTakeAConfigForTheModel) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path() / "Tiny-Llama");
  const json tiny = {{"num_hidden_layers", 22}, {"hidden_size", 2048}, {"intermediate_size", 5632},
                     {"num_attention_heads", 32}, {"num_key_value_heads", 4}, {"vocab_size", 32000},
                     {"max_position_embeddings", 2048}};
  std::ofstream(dir.path() / "Tiny-Llama/config.json") << tiny.dump();
  std::string out;
  ASSERT_EQ(run_binary(dir, "calc --model-config Tiny-Llama/config.json --gpu rtx3090 --quant bf16 --engine vllm "
                            "--contexts 0,1K --concurrency 1,2 --prefill-contexts none --format json",
                       out),
            0)
      << out;
  const json result = json::parse(out, nullptr, false);
  ASSERT_FALSE(result.is_discarded()) << out;
  EXPECT_NE(result.dump().find("Tiny-Llama"), std::string::npos);
  EXPECT_FALSE(result["decode"].empty());
  EXPECT_NE(run_binary(dir, "calc --model-config absent/config.json --gpu rtx3090 --quant bf16 --engine vllm", out), 0);
  EXPECT_NE(out.find("--model-config: cannot read absent/config.json"), std::string::npos) << out;
  // A GPU by its figures, with the config's model: its class in the expected-error line.
  ASSERT_EQ(run_binary(dir, "calc --model-config Tiny-Llama/config.json --gpu 'Lab Card' --gpu-bandwidth 1000 "
                            "--gpu-tflops 200 --gpu-memory 32 --quant bf16 --engine vllm --contexts 0 --concurrency 1 "
                            "--prefill-contexts none",
                       out),
            0)
      << out;
  EXPECT_NE(out.find("Lab Card"), std::string::npos) << out;
  EXPECT_NE(out.find("vllm on geforce"), std::string::npos) << out;  // the class in the expected-error line
  EXPECT_NE(run_binary(dir, "calc --model-config Tiny-Llama/config.json --gpu-bandwidth 1000 --quant bf16 --engine vllm",
                       out),
            0);
  EXPECT_NE(out.find("needs all three of --gpu-bandwidth"), std::string::npos) << out;
  EXPECT_NE(run_binary(dir, "calc --model-config Tiny-Llama/config.json --gpu-bandwidth 1000 --gpu-tflops 200 "
                            "--gpu-memory 32 --gpu-class gaming --quant bf16 --engine vllm",
                       out),
            0);
  EXPECT_NE(out.find("--gpu-class must be"), std::string::npos) << out;
  // sim: a bad config stops it before it listens.
  EXPECT_NE(run_binary(dir, "sim --model-config absent/config.json --listen 127.0.0.1:0", out), 0);
  EXPECT_NE(out.find("cannot read absent/config.json"), std::string::npos) << out;
}

}  // namespace
}  // namespace sm::calc
