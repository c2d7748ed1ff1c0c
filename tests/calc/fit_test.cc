// `calc fit` (issue 13 parts 2 and 3): the optimiser recovers known parameters, the engine file
// it writes is one the catalog reads, and leave-one-source-out cross-validation on the committed
// corpus meets the issue's targets.
#include "calc/fit.h"
#include "calc/predict.h"
#include "calc_test_setup.h"

#include <fmt/format.h>

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace sm::calc {
namespace {

std::vector<CorpusCase> committed_cases(const Catalog& catalog) {
  auto rows = load_corpus_file(std::string(SPEEDMATRIX_SOURCE_DIR) + "/data/measurements/measurements.csv");
  EXPECT_TRUE(rows) << (rows ? "" : rows.error().message);
  return rows ? map_corpus(*rows, catalog) : std::vector<CorpusCase>{};
}

TEST(CalcFit, RecoversParametersFromSyntheticMeasurements) {
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  auto cases = committed_cases(*catalog);
  auto start = catalog->find_engine("llamacpp");
  ASSERT_TRUE(start);
  EngineParams truth = *start;
  truth.bandwidth_efficiency = 0.7;
  truth.prefill_compute_efficiency = 0.25;
  truth.step_overhead_s = 1.5e-3;
  size_t n = 0;
  for (auto& c : cases)
    if (c.usable && c.setup.engine.id == "llamacpp") {
      c.row.value = predict_corpus_value(c, truth);
      ++n;
    }
  ASSERT_GE(n, 40u);
  FitResult fit = fit_engine(cases, *start);
  // The weak prior at the catalog values trades a little of the overhead against bandwidth (both
  // set the batch-1 step), so the recovery is close, not exact.
  EXPECT_LT(fit.loss, fit.loss_before / 20);
  EXPECT_NEAR(fit.params.bandwidth_efficiency, 0.7, 0.03);
  EXPECT_NEAR(fit.params.prefill_compute_efficiency, 0.25, 0.02);
  EXPECT_NEAR(fit.params.step_overhead_s, 1.5e-3, 0.5e-3);
  for (const auto& r : fit.residuals) EXPECT_LT(std::abs(r.error()), 0.05) << r.c->row.id;
}

TEST(CalcFit, FittedParametersStayInBoundsAndTheEngineFileReadsBack) {
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  auto cases = committed_cases(*catalog);
  std::vector<EngineParams> fitted;
  for (const char* id : {"vllm", "sglang", "llamacpp"}) {
    auto start = catalog->find_engine(id);
    ASSERT_TRUE(start);
    FitResult fit = fit_engine(cases, *start);
    EXPECT_LE(fit.loss, fit.loss_before + 1e-12) << id;
    const EngineParams& p = fit.params;
    EXPECT_GE(p.bandwidth_efficiency, 0.3);
    EXPECT_LE(p.bandwidth_efficiency, 0.95);
    EXPECT_GE(p.step_overhead_s, 0.05e-3);
    EXPECT_LE(p.step_overhead_s, 30e-3);
    fitted.push_back(p);
  }
  Catalog copy = *catalog;
  auto ok = copy.add_json(engine_file_json(fitted).dump(), "fitted.json", "engines");
  ASSERT_TRUE(ok) << ok.error().message;
  auto back = copy.find_engine("llamacpp");
  ASSERT_TRUE(back);
  EXPECT_NEAR(back->bandwidth_efficiency, fitted[2].bandwidth_efficiency, 1e-4);
  EXPECT_NEAR(back->step_overhead_s, fitted[2].step_overhead_s, 1e-7);
}

TEST(CalcFit, ErrorStats) {
  const ErrorStats s = error_stats({0.1, -0.2, 0.3, -0.05, 0.5});
  EXPECT_EQ(s.n, 5u);
  EXPECT_NEAR(s.median_abs, 0.2, 1e-12);
  EXPECT_NEAR(s.bias, 0.1, 1e-12);
  EXPECT_NEAR(s.within25, 0.6, 1e-12);
}

// Issue 13 part 3: leave-one-source-out on the committed corpus. Targets: decode median absolute
// error ≤ 15% and 80% of rows within ±25%; prefill median ≤ 20%. (Only the rows the catalog can
// describe count: `speedmatrix calc fit` prints how many were skipped and why.)
TEST(CalcFit, LeaveOneSourceOutMeetsTheIssue13And35Targets) {
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  // Start (and centre the prior) at engine values that never saw the corpus: data/engines.json's
  // llama.cpp values are themselves fitted to it.
  auto ok = catalog->add_file(std::string(SPEEDMATRIX_SOURCE_DIR) + "/data/measurements/cv-start-engines.json", "engines");
  ASSERT_TRUE(ok) << ok.error().message;
  auto cases = committed_cases(*catalog);
  // As `calc fit --cross-validate` does: llama.cpp and MLX (fitted to the corpus) refitted per
  // left-out source, vLLM and SGLang scored with their shipped values (which never saw the corpus).
  const std::set<std::string> refit = test::cv_start_engine_ids();
  const CrossValidation cv = cross_validate(cases, *catalog, &refit);
  std::vector<double> decode, prefill;
  for (const auto& r : cv.residuals) (metric_family(r.c->metric) == "decode" ? decode : prefill).push_back(r.error());
  const ErrorStats d = error_stats(decode);
  const ErrorStats p = error_stats(prefill);
  std::printf("%s", error_table(cv.residuals).c_str());
  EXPECT_GE(d.n, 40u);
  EXPECT_GE(p.n, 30u);
  EXPECT_LE(d.median_abs, 0.15);
  EXPECT_GE(d.within25, 0.80);
  EXPECT_LE(p.median_abs, 0.20);
  // Issue 35's: decode ≤ 8%, prefill ≤ 12% (7.0% and 10.4% on the corpus of this commit).
  EXPECT_LE(d.median_abs, 0.08);
  EXPECT_LE(p.median_abs, 0.12);
  EXPECT_TRUE(refit.count("llamacpp") && refit.count("mlx"));
}

}  // namespace
}  // namespace sm::calc

namespace sm::calc {
namespace {

// Issue 13 part 3: every prediction carries the interval of its engine and GPU class.
TEST(CalcFit, PredictionsCarryTheErrorIntervalOfTheirEngineAndGpuClass) {
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  auto llama = catalog->find_engine("llamacpp");
  ASSERT_TRUE(llama);
  EXPECT_GT(llama->error_80.at("decode/geforce"), 0);
  calc::Setup s;
  s.gpu = *catalog->find_gpu("rtx4090");
  s.model = *catalog->find_model("llama-3.1-8b");
  s.quant = *catalog->find_quant("q4_k_m");
  s.engine = *llama;
  PredictOptions o;
  o.matrix.contexts = {0};
  o.matrix.concurrency = {1};
  o.matrix.prefill_contexts = {4096};
  o.matrix.duration_s = 1;
  o.matrix.max_output_tokens = 128;
  auto r = predict(s, o);
  ASSERT_TRUE(r) << r.error().message;
  const std::string want = fmt::format("decode ±{:.0f}%", 100 * llama->error_80.at("decode/geforce"));
  bool found = false;
  for (const auto& w : r->warnings) found = found || (w.find("80% interval") != std::string::npos && w.find(want) != std::string::npos);
  EXPECT_TRUE(found) << want;
  // A malformed interval key is refused with the entry and key.
  Catalog c = *catalog;
  auto bad = c.add_json(R"({"engines":[{"id":"x","bandwidth_efficiency":0.9,"decode_compute_efficiency":0.5,
      "prefill_compute_efficiency":0.5,"step_overhead_ms":1,"default_gpu_mem_util":0.9,"source":"t",
      "error_80":{"decode":0.2}}]})", "t.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("error_80"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace sm::calc

namespace sm::calc {
namespace {

// Prefill on ROCm and Vulkan (issue 35 point 3): the Strix Halo's (Radeon 8060S, held back from
// the catalog for its decode rows) llama.cpp prompt speeds were predicted +157% at the median,
// almost all of it mixture-of-experts prefill. With the held-back entry added, the shipped
// llama.cpp values (expert_gemm_half_rows fitted on CUDA and Metal rows) predict its 50 prefill
// rows within 25% at the median; without the term they are more than twice as fast as measured.
TEST(CalcFit, StrixHaloPrefillFollowsTheMixtureOfExpertsTerm) {
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  ASSERT_TRUE(catalog->add_file(std::string(SPEEDMATRIX_SOURCE_DIR) + "/data/measurements/held-back-gpus.json"));
  std::vector<double> with_term, without_term;
  for (const auto& c : committed_cases(*catalog)) {
    if (!c.usable || c.setup.gpu.id != "radeon-8060s" || metric_family(c.metric) != "prefill") continue;
    EngineParams plain = c.setup.engine;
    ASSERT_GT(plain.expert_gemm_half_rows, 0);
    with_term.push_back(predict_corpus_value(c, c.setup.engine) / c.row.value - 1.0);
    plain.expert_gemm_half_rows = 0;
    without_term.push_back(predict_corpus_value(c, plain) / c.row.value - 1.0);
  }
  ASSERT_GE(with_term.size(), 40u);
  EXPECT_LT(error_stats(with_term).median_abs, 0.25);
  EXPECT_GT(error_stats(without_term).median_abs, 1.0);
}

}  // namespace
}  // namespace sm::calc
