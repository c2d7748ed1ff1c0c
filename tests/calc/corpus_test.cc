// The calibration corpus loader (issue 13 part 2a): CSV parsing, mapping rows to setups, and
// the reasons rows are not usable.
#include "calc/corpus.h"

#include <fmt/format.h>

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace sm::calc {
namespace {

const char* kHeader =
    "id,source_id,gpu,gpu_class,gpu_count,interconnect,model,params_b,quant,engine,engine_version,metric,"
    "context_tokens,concurrency,prompt_tokens,output_tokens,batch,ubatch,tp,value,unit,notes\n";

TEST(CalcCorpus, ParsesQuotedFieldsAndBlanks) {
  std::string text = std::string(kHeader) +
                     "X-1,X,rtx3090,geforce,1,,llama-3.1-8b,8,q4_k_m,llamacpp,b1,decode_tok_s_per_stream,0,1,,128,,,,"
                     "100.5,tok/s,\"tg 128, \"\"quoted\"\"\"\n";
  auto rows = parse_corpus_csv(text);
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  const CorpusRow& r = rows->front();
  EXPECT_EQ(r.notes, "tg 128, \"quoted\"");
  EXPECT_EQ(r.output_tokens, 128);
  EXPECT_FALSE(r.prompt_tokens.has_value());
  EXPECT_DOUBLE_EQ(r.value, 100.5);
}

TEST(CalcCorpus, RejectsBadNumbers) {
  EXPECT_FALSE(parse_corpus_csv(std::string(kHeader) +
                                "X-1,X,rtx3090,geforce,one,,m,8,q,e,v,prefill_tok_s,0,1,512,,,,,1,tok/s,\n"));
  EXPECT_FALSE(parse_corpus_csv("id,value\nX,1\n"));  // columns missing
}

TEST(CalcCorpus, MapsRowsAndSaysWhyOthersAreUnusable) {
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  std::string text = std::string(kHeader) +
                     // usable: llama-bench tg on a catalog GPU, Llama-3-8B mapped by the notes
                     "A-1,A,rtx3090,geforce,1,,Llama-3-8B,8,q4_k_m,llamacpp,b,decode_tok_s_per_stream,0,1,,512,,,,"
                     "115.42,tok/s,tg 512; model not in catalog (same shape as llama-3.1-8b)\n"
                     // GPU outside the catalog
                     "A-2,A,B200,datacenter,1,,llama-3.1-8b,8,fp8,vllm,v,decode_tok_s_total,0,8,128,128,,,,"
                     "1000,tok/s,x\n"
                     // request rate: no concurrency
                     "A-3,A,h100-sxm,datacenter,1,,llama-3.1-8b,8,bf16,vllm,v,decode_tok_s_total,0,,128,128,,,,"
                     "1000,tok/s,x\n"
                     // engine outside the catalog
                     "A-4,A,h100-sxm,datacenter,1,,llama-3.1-8b,8,fp8,TensorRT-LLM,v,decode_tok_s_total,0,8,128,128,,,,"
                     "1000,tok/s,x\n"
                     // llama.cpp 70B over two GPUs: layer split
                     "A-5,A,rtx3090,geforce,2,,Llama-3-70B,70,q4_k_m,llamacpp,b,decode_tok_s_per_stream,0,1,,512,,,,"
                     "16.3,tok/s,tg 512; model not in catalog (same shape as llama-3.1-70b)\n";
  auto rows = parse_corpus_csv(text);
  ASSERT_TRUE(rows) << rows.error().message;
  auto cases = map_corpus(*rows, *catalog);
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_TRUE(cases[0].usable) << cases[0].why_not;
  EXPECT_EQ(cases[0].setup.model.id, "llama-3.1-8b");
  EXPECT_EQ(cases[0].output, 512);
  EXPECT_EQ(cases[1].why_not, "gpu not in catalog: B200");
  EXPECT_EQ(cases[2].why_not, "concurrency not fixed (request rate or offline)");
  EXPECT_EQ(cases[3].why_not, "engine not in catalog: TensorRT-LLM");
  EXPECT_TRUE(cases[4].usable) << cases[4].why_not;
  EXPECT_TRUE(cases[4].layer_split);
  EXPECT_EQ(cases[4].setup.gpus, 1);
  // A 3090 reads 4.9 GB of Q4_K_M Llama 8B weights at 936 GB/s: around 100-190 tok/s.
  const double tok_s = predict_corpus_value(cases[0], cases[0].setup.engine);
  EXPECT_GT(tok_s, 80);
  EXPECT_LT(tok_s, 200);
}

TEST(CalcCorpus, CommittedCorpusLoads) {
  auto rows = load_corpus_file(std::string(SPEEDMATRIX_SOURCE_DIR) + "/data/measurements/measurements.csv");
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_GE(rows->size(), 476u);
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  auto cases = map_corpus(*rows, *catalog);
  size_t usable = 0;
  std::map<std::string, int> why;
  for (const auto& c : cases) {
    if (c.usable) {
      ++usable;
      const double v = predict_corpus_value(c, c.setup.engine);
      EXPECT_TRUE(std::isfinite(v) && v > 0) << c.row.id;
    } else {
      ++why[c.why_not];
    }
  }
  EXPECT_GE(usable, 90u);  // 94 with the catalog of this commit
  for (const auto& [k, n] : why) std::printf("  %3d %s\n", n, k.c_str());
  std::printf("usable: %zu of %zu\n", usable, cases.size());
}

}  // namespace
}  // namespace sm::calc

namespace sm::calc {
namespace {

// The optional flash_attention column: on / off / empty, anything else refused with its line;
// an "off" row is predicted without flash attention (issue 13: llama.cpp `-fa off` rows).
TEST(CalcCorpus, FlashAttentionColumn) {
  const std::string header =
      "id,source_id,gpu,gpu_class,gpu_count,interconnect,model,params_b,quant,engine,engine_version,metric,"
      "context_tokens,concurrency,prompt_tokens,output_tokens,batch,ubatch,tp,flash_attention,value,unit,notes\n";
  auto row = [](const char* id, const char* fa) {
    return fmt::format("{},X,rtx3090,geforce,1,,llama-3.1-8b,8,q4_k_m,llamacpp,b1,decode_tok_s_per_stream,0,1,,8192,,,,"
                       "{},90,tok/s,tg 8192\n", id, fa);
  };
  auto rows = parse_corpus_csv(header + row("X-1", "on") + row("X-2", "off") + row("X-3", ""));
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ((*rows)[0].flash_attention, std::optional<bool>(true));
  EXPECT_EQ((*rows)[1].flash_attention, std::optional<bool>(false));
  EXPECT_FALSE((*rows)[2].flash_attention.has_value());
  auto bad = parse_corpus_csv(header + row("X-4", "yes"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("line 2: flash_attention \"yes\""), std::string::npos) << bad.error().message;

  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  const auto cases = map_corpus(*rows, *catalog);
  ASSERT_TRUE(cases[0].usable && cases[1].usable && cases[2].usable);
  EXPECT_TRUE(cases[0].setup.flash_attention);
  EXPECT_FALSE(cases[1].setup.flash_attention);
  EXPECT_TRUE(cases[2].setup.flash_attention);  // not stated: the engine's default today
  const EngineParams& llama = cases[1].setup.engine;
  ASSERT_GT(llama.no_flash_attention_efficiency, 0);
  // Mean context 4K: without flash attention the same row is predicted slower.
  EXPECT_LT(predict_corpus_value(cases[1], llama), 0.97 * predict_corpus_value(cases[0], llama));
}

}  // namespace
}  // namespace sm::calc

namespace sm::calc {
namespace {

// llama.cpp's parameters describe builds since flash attention and CUDA graphs (2024): a row
// from a 2023 build is skipped with its reason, one from a later build of the same setup is used,
// and the rule is llama.cpp's alone.
TEST(CalcCorpus, LlamaCppBuildsFrom2023AreNotTheEngineModelled) {
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  auto row = [](const char* id, const char* engine, const char* version) {
    return fmt::format("{},X,rtx3090,geforce,1,,llama-3.1-8b,8,q4_k_m,{},{},decode_tok_s_per_stream,0,1,,512,,,,"
                       "100,tok/s,tg 512\n", id, engine, version);
  };
  auto rows = parse_corpus_csv(std::string(kHeader) + row("X-1", "llamacpp", "Dec 2023 build (b1680)") +
                               row("X-2", "llamacpp", "b9010 (d05fe1d7d)") +
                               row("X-3", "llamacpp", "May 2024 build (not stated)") +
                               row("X-4", "vllm", "0.2.6 (Dec 2023)"));
  ASSERT_TRUE(rows) << rows.error().message;
  const auto cases = map_corpus(*rows, *catalog);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_FALSE(cases[0].usable);
  EXPECT_EQ(cases[0].why_not, "llama.cpp build from 2023 (before flash attention and CUDA graphs)");
  EXPECT_TRUE(cases[1].usable) << cases[1].why_not;
  EXPECT_TRUE(cases[2].usable) << cases[2].why_not;
  EXPECT_TRUE(cases[3].usable) << cases[3].why_not;
}

}  // namespace
}  // namespace sm::calc

namespace sm::calc {
namespace {

// llama.cpp computes a prompt in micro-batches of -ub tokens (at most -b; default 512): a row's
// stated ubatch is the prefill step; a sweep below the default 512 is skipped with its reason (a kernel sweep,
// not a serving configuration); Qwen2.5-Coder-7B maps to Qwen2.5 7B's shape when the notes say so.
TEST(CalcCorpus, LlamaCppMicroBatchIsThePrefillStep) {
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  auto row = [](const char* id, const char* model, const char* batch, const char* ubatch, const char* notes) {
    return fmt::format("{},X,rtx3090,geforce,1,,{},7,q4_0,llamacpp,b9010,prefill_tok_s,0,1,2048,,{},{},,"
                       "5000,tok/s,{}\n", id, model, batch, ubatch, notes);
  };
  auto rows = parse_corpus_csv(std::string(kHeader) + row("X-1", "llama-2-7b", "", "", "pp2048") +
                               row("X-2", "llama-2-7b", "2048", "512", "pp2048") +
                               row("X-3", "llama-2-7b", "", "1024", "pp2048") +
                               row("X-4", "llama-2-7b", "", "64", "pp2048 at microbatch 64") +
                               row("X-5", "Qwen2.5-Coder-7B", "", "", "pp2048; same shape as qwen2.5-7b") +
                               row("X-6", "Qwen2.5-Coder-7B", "", "", "pp2048"));
  ASSERT_TRUE(rows) << rows.error().message;
  const auto cases = map_corpus(*rows, *catalog);
  ASSERT_EQ(cases.size(), 6u);
  for (size_t i : {0u, 1u, 2u, 4u}) ASSERT_TRUE(cases[i].usable) << i << ": " << cases[i].why_not;
  EXPECT_EQ(cases[0].setup.batched_tokens(), 512);  // not stated: the engine's, llama.cpp's default -ub
  EXPECT_EQ(cases[1].setup.batched_tokens(), 512);
  EXPECT_EQ(cases[2].setup.batched_tokens(), 1024);
  EXPECT_FALSE(cases[3].usable);
  EXPECT_EQ(cases[3].why_not, "llama.cpp micro-batch below its default 512 (a kernel sweep)");
  EXPECT_EQ(cases[4].setup.model.id, "qwen2.5-7b");
  EXPECT_FALSE(cases[5].usable);  // a model name the catalog lacks, its notes silent on the shape
  // Four 512-token micro-batches take longer than two of 1024 (weights read four times).
  EXPECT_LT(predict_corpus_value(cases[1], cases[1].setup.engine), predict_corpus_value(cases[2], cases[2].setup.engine));
}

}  // namespace
}  // namespace sm::calc
