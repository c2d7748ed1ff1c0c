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

// Every kind of refusal, word for word as the command line has always printed it, and as the
// sentences (calc/phrase.h) a page translates: their ids in order, their English joined.
TEST(CalcCompat, RefusalsAreSentencesWithTheCommandLinesEnglish) {
  struct Expected {
    calc::Setup setup;
    std::vector<std::string> ids;
    std::string english;
  };
  const std::vector<Expected> cases = {
      {make_setup("m3-max", "llama-3.1-8b", "bf16", "vllm"),
       {"calc.refusal.no_backend", "calc.refusal.use_engine"},
       "vLLM does not run on Apple M3 Max (64 GB): it has no metal backend (it runs on cuda, rocm, xpu). Use --engine "
       "llamacpp, mlx instead."},
      {make_setup("m3-max", "llama-3.1-8b", "awq-4bit", "vllm"),
       {"calc.refusal.no_backend", "calc.refusal.no_engine_there"},
       "vLLM does not run on Apple M3 Max (64 GB): it has no metal backend (it runs on cuda, rocm, xpu). No catalog "
       "engine runs this quantisation there."},
      {make_setup("rtx4090", "llama-3.1-8b", "awq-4bit", "llamacpp"),
       {"calc.refusal.no_format", "calc.refusal.use_quant_or_engine"},
       "llama.cpp does not load AWQ 4-bit weights (format awq; it loads 16-bit, gguf, mxfp4). Use --quant iq4_xs "
       "(4.25 bits per weight) with llama.cpp, or --engine vllm, sglang for AWQ 4-bit."},
      {make_setup("rtx3090", "llama-3.1-8b", "exl2-4.0bpw", "vllm"),
       {"calc.refusal.no_format", "calc.refusal.use_quant"},
       "vLLM does not load EXL2 4.0 bpw weights (format exl2; it loads 16-bit, fp8, int8, awq, gptq, "
       "compressed-tensors, nvfp4, mxfp4). Use --quant w4a16 (4.12 bits per weight) with vLLM."},
      {make_setup("rtx4090", "qwen3-32b", "bf16", "vllm"),
       {"calc.refusal.does_not_fit", "calc.refusal.fits_on_more", "calc.refusal.fits_with_quant.3"},
       "Qwen3-32B (BF16) does not fit on 1 x NVIDIA GeForce RTX 4090 with 0.9 memory utilisation: weights 61.02 GiB "
       "+ reserve 2.40 GiB + activations 0.70 GiB > 21.32 GiB. It fits on 4 x NVIDIA GeForce RTX 4090 (--gpus 4). "
       "With --quant awq-4bit (18.0 GiB of weights), gptq-4bit (18.0 GiB of weights), w4a16 (17.9 GiB of weights) it "
       "fits on 1 x NVIDIA GeForce RTX 4090."},
      {make_setup("a10", "qwen3-32b", "bf16", "vllm"),
       {"calc.refusal.does_not_fit", "calc.refusal.fits_on_more", "calc.refusal.fits_with_quant.1"},
       "Qwen3-32B (BF16) does not fit on 1 x NVIDIA A10 with 0.9 memory utilisation: weights 61.02 GiB + reserve 2.40 "
       "GiB + activations 0.70 GiB > 19.86 GiB. It fits on 4 x NVIDIA A10 (--gpus 4). With --quant iq4_xs (16.4 GiB "
       "of weights) it fits on 1 x NVIDIA A10."},
      {make_setup("rtx3090", "llama-2-70b", "fp8", "vllm"),
       {"calc.refusal.does_not_fit", "calc.refusal.fits_on_more"},
       "Llama-2-70B (FP8 W8A8) does not fit on 1 x NVIDIA GeForce RTX 3090 with 0.9 memory utilisation: weights "
       "64.73 GiB + reserve 2.40 GiB + activations 0.58 GiB > 21.32 GiB. It fits on 4 x NVIDIA GeForce RTX 3090 "
       "(--gpus 4)."},
      {make_setup("rtx3060-12gb", "llama-2-70b", "bf16", "vllm"),
       {"calc.refusal.does_not_fit", "calc.refusal.no_fit"},
       "Llama-2-70B (BF16) does not fit on 1 x NVIDIA GeForce RTX 3060 12 GB with 0.9 memory utilisation: weights "
       "128.48 GiB + reserve 2.40 GiB + activations 0.58 GiB > 10.66 GiB. No quantisation in the catalog and no "
       "count up to 8 of this GPU holds it: choose a larger GPU."},
  };
  for (const Expected& e : cases) {
    const std::vector<Phrase> why = setup_refusal(e.setup);
    std::vector<std::string> ids;
    for (const Phrase& p : why) ids.push_back(p.id);
    EXPECT_EQ(ids, e.ids) << e.english;
    EXPECT_EQ(english(why), e.english);
    auto r = predict(e.setup, small_matrix());  // what `calc` prints
    ASSERT_FALSE(r) << e.english;
    EXPECT_EQ(r.error().message, e.english);
  }
  // The refusal's text and its sentences agree.
  const Compatibility c = check(make_setup("m3-max", "llama-3.1-8b", "bf16", "vllm"));
  EXPECT_EQ(c.refusal, english(c.refusal_phrases));
  EXPECT_TRUE(setup_refusal(make_setup("rtx3090", "qwen3.5-4b", "awq-4bit", "vllm")).empty());
}

// The alternatives no built-in setup needs: only another engine, and two smaller quantisations.
TEST(CalcCompat, EveryRefusalSentenceHasItsEnglish) {
  EXPECT_EQ(english(Phrase{"calc.refusal.use_engine_for", {{"engines", "exllamav2"}, {"quant", "EXL2 4.0 bpw"}}}),
            "Use --engine exllamav2 for EXL2 4.0 bpw.");
  EXPECT_EQ(english(Phrase{"calc.refusal.fits_with_quant.2",
                           {{"quant1", "q8_0"}, {"gib1", "7.9"}, {"quant2", "q6_k"}, {"gib2", "6.1"}, {"gpus", "1"}, {"gpu", "G"}}}),
            "With --quant q8_0 (7.9 GiB of weights), q6_k (6.1 GiB of weights) it fits on 1 x G.");
  // A user engine that loads no catalog quantisation, on a GPU another engine loads the format on.
  calc::Setup s = make_setup("rtx4090", "llama-3.1-8b", "awq-4bit", "llamacpp");
  s.engine.quant_formats = {"exotic"};
  const Compatibility c = check(s);
  ASSERT_EQ(c.refusal_phrases.size(), 2u) << c.refusal;
  EXPECT_EQ(c.refusal_phrases[1].id, "calc.refusal.use_engine_for");
  EXPECT_EQ(c.refusal, "llama.cpp does not load AWQ 4-bit weights (format awq; it loads exotic). Use --engine vllm, sglang "
                       "for AWQ 4-bit.");
  // Every sentence is the calculator's; an id without a template (a bug) shows as itself.
  for (const auto& [id, text] : phrase_templates()) EXPECT_TRUE(id.starts_with("calc.")) << id;
  EXPECT_EQ(english(Phrase{"calc.refusal.no_such_sentence", {}}), "calc.refusal.no_such_sentence");
}

// A prediction's notes and warnings are sentences too (for a page in another language), with
// the English the command line has always printed.
TEST(CalcCompat, APredictionsNotesAndWarningsAreSentencesWithTheirEnglish) {
  auto ids = [](const std::vector<Phrase>& phrases) {
    std::vector<std::string> out;
    for (const Phrase& p : phrases) out.push_back(p.id);
    return out;
  };
  struct Expected {
    calc::Setup setup;
    std::vector<std::string> warnings;
  };
  const std::vector<Expected> cases = {
      {make_setup("a100-80gb", "llama-3.1-8b", "fp8", "vllm"),
       {"expected error (80% interval, leave-one-source-out over the calibration corpus, vllm on datacenter GPUs): "
        "decode ±39%, prefill: no estimate",
        "FP8 W8A8 on NVIDIA A100 80 GB SXM: the GPU has 8-bit tensor math only for int8, so there is no FP8 tensor "
        "math; engines run these weights weight-only (dequantised to 16-bit inside the matmul, as vLLM's Marlin "
        "kernels do). Predicted with 8-bit weights at the 16-bit tensor rate."}},
      {make_setup("rtx4090", "llama-3.1-8b", "q4_k_m", "sglang"),
       {"expected error (80% interval, leave-one-source-out over the calibration corpus, sglang on geforce GPUs): "
        "decode ±200% (little evidence: none measured on geforce), prefill: no estimate",
        "SGLang loads GGUF weights only experimentally: SGLang loads a .gguf path with its gguf load format (docs: "
        "Model Loading), outside its tuned FP8/AWQ/GPTQ kernels. Predicted with SGLang's usual efficiencies, so "
        "expect it to be slower.",
        "engine 'sglang' parameters are not calibrated against a measured matrix: uncalibrated: its parameters are not "
        "fitted; 6 usable corpus rows from 2 sources score them as shipped (the band)"}},
      {make_setup("rtx3090", "llama-3.1-8b", "nvfp4", "vllm"),
       {"expected error (80% interval, leave-one-source-out over the calibration corpus, vllm on geforce GPUs): "
        "decode ±200% (little evidence: none measured on geforce), prefill: no estimate",
        "NVFP4 on NVIDIA GeForce RTX 3090: the GPU has no FP4 tensor math (FP4 arrived with Blackwell), so there is "
        "no NVFP4 tensor math; engines run these weights weight-only (dequantised to 16-bit inside the matmul, as "
        "vLLM's Marlin kernels do). Predicted with 4.5-bit weights at the 16-bit tensor rate."}},
      {make_setup("rtx4090", "llama-3.1-8b", "q4_k_m", "llamacpp"),
       {"expected error (80% interval, leave-one-source-out over the calibration corpus, llamacpp on geforce GPUs): "
        "decode ±10%, prefill ±25%"}},
  };
  for (const Expected& e : cases) {
    PredictionWording wording;
    auto r = predict(e.setup, small_matrix(), &wording);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->warnings, e.warnings);
    EXPECT_EQ(english(wording.notes), r->notes);
    ASSERT_EQ(wording.warnings.size(), r->warnings.size());
    for (size_t i = 0; i < r->warnings.size(); ++i) EXPECT_EQ(english(wording.warnings[i]), r->warnings[i]);
    EXPECT_TRUE(r->notes.starts_with("Predicted by speedmatrix calc (performance model v1, engine parameters '" +
                                     e.setup.engine.id + "'), not measured. Memory: weights "))
        << r->notes;
    ASSERT_FALSE(wording.notes.empty());
    EXPECT_EQ(wording.notes[0].id, "calc.note.predicted");
  }
  PredictionWording fp8;
  ASSERT_TRUE(predict(cases[0].setup, small_matrix(), &fp8));
  EXPECT_EQ(ids(fp8.notes), (std::vector<std::string>{"calc.note.predicted", "calc.warning.weight_only.8bit_only_for"}));
  EXPECT_EQ(ids(fp8.warnings[0]),
            (std::vector<std::string>{"calc.warning.expected_error", "calc.warning.decode_error", "calc.warning.prefill_error.none"}));
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

namespace sm::calc {
namespace {

// The MLX engine (issue 35 point 3): mlx-lm runs on Apple GPUs only and loads MLX's own 4-bit
// format (4.5 bits per weight with its scales and biases); llama.cpp refuses that format and
// points at mlx, and a fitted MLX predicts the corpus's one-stream row on the 24 GB M4 Pro.
TEST(CalcCompat, MlxRunsOnAppleSiliconWithItsOwnFormat) {
  EXPECT_FALSE(check(make_setup("m4-pro-24gb", "llama-3.1-8b", "mlx-4bit", "mlx")).refused());
  const Compatibility cuda = check(make_setup("rtx4090", "llama-3.1-8b", "mlx-4bit", "mlx"));
  ASSERT_TRUE(cuda.refused());
  EXPECT_TRUE(has(cuda.refusal, "no cuda backend")) << cuda.refusal;
  const Compatibility llama = check(make_setup("m3-max", "llama-3.1-8b", "mlx-4bit", "llamacpp"));
  ASSERT_TRUE(llama.refused());
  EXPECT_TRUE(has(llama.refusal, "--engine mlx")) << llama.refusal;
  const calc::Setup s = make_setup("m4-pro-24gb", "llama-3.1-8b", "mlx-4bit", "mlx");
  EXPECT_DOUBLE_EQ(s.quant.bits_for("mlp"), 4.5);
  // S42-053: 50.18 tok/s measured (llmfit bench, mlx-community Llama-3.1-8B-Instruct-4bit).
  const std::vector<int64_t> one_stream{256};
  const double tok_s = 1.0 / decode_step_time_s(s, one_stream);
  EXPECT_NEAR(tok_s / 50.18, 1.0, s.engine.error_80.at("decode/apple")) << tok_s;
}

}  // namespace
}  // namespace sm::calc
