// The combination rules of src/calc/compat.cc, each from the catalogs' data: refusals name the
// reason and an alternative, warnings land in the prediction.
#include "calc/compat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "calc/catalog.h"
#include "calc/perf_model.h"
#include "calc/predict.h"
#include "calc_test_setup.h"

namespace sm::calc {
namespace {

using test::make_setup;

Compatibility check(const Setup& s) {
  auto c = Catalog::builtin();
  EXPECT_TRUE(c);
  return check_compatibility(s, c->engines(), c->quants());
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool any_has(const std::vector<std::string>& list, const std::string& part) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return has(s, part); });
}

PredictOptions small_matrix() {
  PredictOptions o;
  o.matrix.contexts = {0};
  o.matrix.concurrency = {1};
  o.matrix.prefill_contexts = {4096};
  o.matrix.duration_s = 1;
  return o;
}

TEST(CalcCompat, VllmOnAppleSiliconIsRefusedAndPointsToLlamaCpp) {
  const Compatibility c = check(make_setup("m3-max", "llama-3.1-8b", "bf16", "vllm"));
  ASSERT_TRUE(c.refused());
  EXPECT_TRUE(has(c.refusal, "no metal backend")) << c.refusal;
  EXPECT_TRUE(has(c.refusal, "--engine llamacpp")) << c.refusal;
  auto r = predict(make_setup("m3-max", "llama-3.1-8b", "bf16", "sglang"), small_matrix());
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "SGLang does not run on Apple M3 Max")) << r.error().message;
  EXPECT_FALSE(check(make_setup("m3-max", "llama-3.1-8b", "q4_k_m", "llamacpp")).refused());
}

TEST(CalcCompat, AwqAndGptqOnLlamaCppAreRefusedWithAGgufAlternative) {
  for (const char* quant : {"awq-4bit", "gptq-4bit", "fp8", "nvfp4"}) {
    const Compatibility c = check(make_setup("rtx4090", "llama-3.1-8b", quant, "llamacpp"));
    ASSERT_TRUE(c.refused()) << quant;
    EXPECT_TRUE(has(c.refusal, "llama.cpp does not load")) << c.refusal;
    EXPECT_TRUE(has(c.refusal, "--quant ")) << c.refusal;         // a GGUF type it does load
    EXPECT_TRUE(has(c.refusal, "--engine vllm")) << c.refusal;    // or an engine that loads this one
  }
  // The GGUF suggested for a 4-bit checkpoint is a 4-bit GGUF type.
  const Compatibility awq = check(make_setup("rtx4090", "llama-3.1-8b", "awq-4bit", "llamacpp"));
  EXPECT_TRUE(has(awq.refusal, "--quant q4_0") || has(awq.refusal, "--quant q4_k_s") ||
              has(awq.refusal, "--quant iq4_xs") || has(awq.refusal, "--quant q4_k_m"))
      << awq.refusal;
}

TEST(CalcCompat, GgufOnVllmAndSglangIsPredictedWithAnExperimentalWarning) {
  for (const char* engine : {"vllm", "sglang"}) {
    const calc::Setup s = make_setup("rtx4090", "llama-3.1-8b", "q4_k_m", engine);
    const Compatibility c = check(s);
    EXPECT_FALSE(c.refused()) << c.refusal;
    ASSERT_EQ(c.warnings.size(), 1u) << engine;
    EXPECT_TRUE(has(c.warnings[0], "experimental")) << c.warnings[0];
    auto r = predict(s, small_matrix());
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(any_has(r->warnings, "GGUF weights only experimentally")) << engine;
    EXPECT_TRUE(has(r->notes, "experimentally")) << r->notes;
  }
  EXPECT_TRUE(check(make_setup("rtx4090", "llama-3.1-8b", "q4_k_m", "llamacpp")).warnings.empty());
}

TEST(CalcCompat, Fp8OnAmpereFallsBackToWeightOnlyAndIsPredictedSo) {
  const calc::Setup fp8 = make_setup("a100-80gb", "llama-3.1-8b", "fp8", "vllm");
  const Compatibility c = check(fp8);
  EXPECT_FALSE(c.refused());
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_TRUE(has(c.warnings[0], "weight-only")) << c.warnings[0];
  EXPECT_TRUE(has(c.warnings[0], "int8")) << c.warnings[0];  // what the A100 does have
  EXPECT_FALSE(matmul_math(fp8.gpu, fp8.quant).native);
  // Compute-bound prefill runs at the 16-bit rate: no faster than BF16 (the A100's 624 INT8 TOPS do not apply).
  const calc::Setup bf16 = make_setup("a100-80gb", "llama-3.1-8b", "bf16", "vllm");
  EXPECT_GT(PerfModel(fp8).prefill_compute_time_s(32768), 0.95 * PerfModel(bf16).prefill_compute_time_s(32768));
  // INT8 W8A8 does run on the A100's INT8 tensor cores; FP8 does on Hopper.
  EXPECT_TRUE(check(make_setup("a100-80gb", "llama-3.1-8b", "int8-w8a8", "vllm")).warnings.empty());
  EXPECT_TRUE(check(make_setup("h100-sxm", "llama-3.1-8b", "fp8", "vllm")).warnings.empty());
  auto r = predict(fp8, small_matrix());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(any_has(r->warnings, "weight-only"));
}

TEST(CalcCompat, Fp4TensorMathOnlyOnBlackwell) {
  const calc::Setup hopper = make_setup("h100-sxm", "llama-3.1-8b", "nvfp4", "vllm");
  const Compatibility c = check(hopper);
  EXPECT_FALSE(c.refused());
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_TRUE(has(c.warnings[0], "no FP4 tensor math")) << c.warnings[0];
  const calc::Setup blackwell = make_setup("rtx5090", "llama-3.1-8b", "nvfp4", "vllm");
  EXPECT_TRUE(check(blackwell).warnings.empty());
  const MatmulMath math = matmul_math(blackwell.gpu, blackwell.quant);
  EXPECT_TRUE(math.native);
  EXPECT_EQ(math.format, "nvfp4");
  EXPECT_DOUBLE_EQ(math.peak_flops, 1676e12);
  // Native FP4 prefill on the RTX 5090 beats BF16 by far more than the weight bytes explain.
  const calc::Setup bf16 = make_setup("rtx5090", "llama-3.1-8b", "bf16", "vllm");
  EXPECT_LT(PerfModel(blackwell).prefill_compute_time_s(16384), 0.5 * PerfModel(bf16).prefill_compute_time_s(16384));
  EXPECT_TRUE(check(make_setup("rtx-pro-6000", "gpt-oss-120b", "mxfp4", "vllm")).warnings.empty());
  EXPECT_FALSE(check(make_setup("h100-sxm", "gpt-oss-120b", "mxfp4", "vllm")).warnings.empty());
}

TEST(CalcCompat, ExlQuantsNeedAnEngineThatLoadsThem) {
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  auto exl = catalog->find_quant("exl2-4.65bpw");  // any rate
  ASSERT_TRUE(exl) << exl.error().message;
  EXPECT_DOUBLE_EQ(exl->bits_per_weight(), 4.65);
  EXPECT_EQ(exl->format, "exl2");
  EXPECT_FALSE(catalog->find_quant("exl2-banana"));
  calc::Setup s = make_setup("rtx3090", "llama-3.1-8b", "exl2-4.0bpw", "vllm");
  const Compatibility c = check(s);
  ASSERT_TRUE(c.refused());
  EXPECT_TRUE(has(c.refusal, "does not load EXL2")) << c.refusal;
  // A user engine (ExLlamaV2 / TabbyAPI) that lists the format runs it.
  ASSERT_TRUE(catalog->add_json(R"({"engines": [{"id": "exllamav2", "bandwidth_efficiency": 0.8,
      "decode_compute_efficiency": 0.3, "prefill_compute_efficiency": 0.4, "step_overhead_ms": 1,
      "default_gpu_mem_util": 0.95, "backends": ["cuda"], "quant_formats": ["16-bit", "exl2", "exl3"],
      "source": "test"}]})", "exl.json"));
  s.engine = *catalog->find_engine("exllamav2");
  EXPECT_FALSE(check_compatibility(s, catalog->engines(), catalog->quants()).refused());
  s.gpu = *catalog->find_gpu("mi300x");  // rocm: not in its backends
  EXPECT_TRUE(check_compatibility(s, catalog->engines(), catalog->quants()).refused());
}

TEST(CalcCompat, UserEntriesWithoutRulesRunAnywhere) {
  calc::Setup s = make_setup("m3-max", "llama-3.1-8b", "awq-4bit", "vllm");
  s.engine.backends.clear();
  s.engine.quant_formats.clear();
  EXPECT_FALSE(check(s).refused());
}

TEST(CalcCompat, AModelThatDoesNotFitSaysWhatWould) {
  auto r = predict(make_setup("rtx4090", "qwen3-32b", "bf16", "vllm"), small_matrix());
  ASSERT_FALSE(r);
  const std::string& m = r.error().message;
  EXPECT_TRUE(has(m, "does not fit")) << m;
  EXPECT_TRUE(has(m, "(--gpus ")) << m;   // the fewest GPUs that hold it
  EXPECT_TRUE(has(m, "With --quant ")) << m;  // a smaller quantisation vLLM loads that fits on one
  // Only quantisations the engine loads are suggested: never AWQ for llama.cpp.
  auto l = predict(make_setup("rtx3090", "llama-3.1-70b", "q8_0", "llamacpp"), small_matrix());
  ASSERT_FALSE(l);
  EXPECT_FALSE(has(l.error().message, "awq")) << l.error().message;
}

TEST(CalcCompat, BuiltInEntriesCarryTheRuleFields) {
  auto c = Catalog::builtin();
  ASSERT_TRUE(c);
  for (const auto& g : c->gpus()) {
    EXPECT_FALSE(g.backend.empty()) << g.id;
    if (g.tensor_8bit_flops) {
      EXPECT_FALSE(g.tensor_8bit_formats.empty()) << g.id;
    }
  }
  for (const auto& q : c->quants()) EXPECT_FALSE(q.format.empty()) << q.id;
  for (const auto& e : c->engines()) {
    EXPECT_FALSE(e.backends.empty()) << e.id;
    EXPECT_FALSE(e.quant_formats.empty()) << e.id;
  }
  // Every built-in quantisation but the EXL formats runs on some built-in engine.
  for (const auto& q : c->quants()) {
    if (q.format == "exl2" || q.format == "exl3") continue;
    bool runs = false;
    for (const auto& e : c->engines())
      runs = runs || std::find(e.quant_formats.begin(), e.quant_formats.end(), q.format) != e.quant_formats.end();
    EXPECT_TRUE(runs) << q.id;
  }
}

}  // namespace
}  // namespace sm::calc
