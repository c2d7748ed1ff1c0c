// `speedmatrix calc` as a user runs it: the real binary, from a folder that is not the repository
// (the catalogs are compiled in).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the binary with `args` (a shell fragment) inside `dir`; stdout is a file, never a tty.
Outcome run_calc(const test::TempDir& dir, const std::string& args) {
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string cmd = "cd '" + dir.path().string() + "' && '" + std::string(SPEEDMATRIX_BINARY) + "' " + args +
                          " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  Outcome r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test::read_file(out);
  r.err = test::read_file(err);
  return r;
}

const std::string kSeed =
    "calc --gpu rtx3090 --model qwen3.5-4b --quant awq-4bit --engine vllm --gpu-mem-util 0.94 "
    "--max-model-len 262144 --max-num-seqs 128";

TEST(CalcCli, ListShowsEveryCatalog) {
  test::TempDir dir;
  Outcome r = run_calc(dir, "calc --list");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"rtx3090", "h100-sxm", "qwen3.5-4b", "qwen3-30b-a3b", "awq-4bit", "q4_k_m", "vllm", "llamacpp"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  Outcome j = run_calc(dir, "calc --list --format json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  for (const char* key : {"gpus", "models", "quants", "engines"}) EXPECT_FALSE(doc[key].empty()) << key;
  EXPECT_FALSE(doc["gpus"][0]["source"].get<std::string>().empty());
}

TEST(CalcCli, SeedPredictionAsJsonIsAResult) {
  test::TempDir dir;
  Outcome r = run_calc(dir, kSeed + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto result = result_from_json(nlohmann::json::parse(r.out));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->kind, "predicted");
  EXPECT_EQ(result->decode.size(), 48u);
  ASSERT_TRUE(result->engine.kv_capacity_tokens);
  EXPECT_GE(*result->engine.kv_capacity_tokens, 524288);
  EXPECT_LE(*result->engine.kv_capacity_tokens, 557055);
}

TEST(CalcCli, OutFileFeedsReportAndCompare) {
  test::TempDir dir;
  Outcome a = run_calc(dir, kSeed + " --out pred.json --format term --color never");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("Predicted"), std::string::npos);
  Outcome b = run_calc(dir, "calc --gpu rtx4090 --model qwen3.5-4b --quant awq-4bit --engine vllm --out b.json "
                            "--format json --contexts 0,16K --concurrency 1,8");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  Outcome report = run_calc(dir, "report pred.json --format md");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("RTX 3090"), std::string::npos);
  Outcome compare = run_calc(dir, "compare pred.json b.json");
  EXPECT_EQ(compare.exit_code, 0) << compare.err;
  Outcome html = run_calc(dir, kSeed + " --format html");
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("<html"), std::string::npos);
}

TEST(CalcCli, UnknownNamesAndMissingFlagsAreUsageErrors) {
  test::TempDir dir;
  Outcome r = run_calc(dir, "calc --gpu rtx309 --model qwen3.5-4b --quant awq-4bit --engine vllm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gpu: unknown GPU 'rtx309'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rtx3090"), std::string::npos) << r.err;
  Outcome m = run_calc(dir, "calc --gpu rtx3090");
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.err.find("missing --model, --quant, --engine"), std::string::npos) << m.err;
  Outcome f = run_calc(dir, kSeed + " --format xml");
  EXPECT_EQ(f.exit_code, 2);
}

TEST(CalcCli, UserFilesAddEntriesAndBadFilesFailClearly) {
  test::TempDir dir;
  {
    std::ofstream out(dir.file("gpu.json"));
    out << R"({"gpus": [{"id": "lab-gpu", "memory_gib": 48, "bandwidth_gb_s": 1200, "tensor_16bit_tflops": 300,
             "source": "our lab's datasheet"}]})";
    std::ofstream bad(dir.file("bad.json"));
    bad << R"([{"id": "x", "layers": "many"}])";
  }
  Outcome ok = run_calc(dir, "calc --gpu-file gpu.json --gpu lab-gpu --model llama-3.1-8b --quant bf16 --engine sglang "
                             "--contexts 0 --concurrency 1 --prefill-contexts none --format json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  auto doc = nlohmann::json::parse(ok.out);
  EXPECT_EQ(doc["hardware"]["gpus"][0]["name"], "lab-gpu");
  Outcome bad = run_calc(dir, "calc --model-file bad.json --list");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.json: models[0] (\"x\")"), std::string::npos) << bad.err;
  Outcome missing = run_calc(dir, "calc --gpu-file nope.json --list");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;
}

TEST(CalcCli, ModelThatDoesNotFitFails) {
  test::TempDir dir;
  Outcome r = run_calc(dir, "calc --gpu rtx3090 --model llama-3.1-70b --quant bf16 --engine vllm");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not fit"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sm
