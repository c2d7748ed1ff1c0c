// `calc fit --calibration-pairs` (issue 35 point 5): what --calibrate-from gains on held-out pairs.
// Planted truth: when every llama.cpp row is what one set of parameters predicts, fitting one
// GPU's rows recovers it and predicts the other GPUs (or models) far better than the catalog's
// values; pairs hold one thing fixed and differ in the other.
#include "calc/calibration_pairs.h"
#include "calc/predict.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sm::calc {
namespace {

std::vector<CorpusCase> planted_llamacpp_cases(const Catalog& catalog, const EngineParams& truth) {
  auto rows = load_corpus_file(std::string(SPEEDMATRIX_SOURCE_DIR) + "/data/measurements/measurements.csv");
  EXPECT_TRUE(rows.has_value());
  std::vector<CorpusCase> cases;
  for (auto& c : map_corpus(rows ? *rows : std::vector<CorpusRow>{}, catalog)) {
    if (!c.usable || c.setup.engine.id != "llamacpp") continue;
    c.row.value = predict_corpus_value(c, truth);
    cases.push_back(std::move(c));
  }
  return cases;
}

TEST(CalibrationPairs, FittingOneSideRecoversAPlantedTruthForTheOther) {
  auto catalog = Catalog::builtin();
  ASSERT_TRUE(catalog);
  auto shipped = catalog->find_engine("llamacpp");
  ASSERT_TRUE(shipped);
  EngineParams truth = *shipped;
  truth.bandwidth_efficiency = shipped->bandwidth_efficiency * 0.6;
  truth.step_overhead_s = shipped->step_overhead_s + 2e-3;
  const auto cases = planted_llamacpp_cases(*catalog, truth);
  ASSERT_GE(cases.size(), 40u);
  for (PairAcross across : {PairAcross::Gpu, PairAcross::Model}) {
    const CalibrationPairs r = evaluate_calibration_pairs(cases, *catalog, {}, across);
    ASSERT_GE(r.pairs.size(), 10u);
    ASSERT_EQ(r.before.size(), r.after.size());
    for (const auto& p : r.pairs) {
      EXPECT_NE(p.from, p.to);
      EXPECT_GT(p.from_rows, 0u);
      EXPECT_GT(p.to_rows, 0u);
    }
    const ErrorStats before = error_stats(r.before), after = error_stats(r.after);
    EXPECT_GT(before.median_abs, 0.15) << "the catalog's values are far from the planted truth";
    EXPECT_LT(after.median_abs, before.median_abs / 3) << "one side's rows pin the truth for the other";
    EXPECT_NE(calibration_pairs_table(r).find("calibration helped in"), std::string::npos);
  }
  // A pair across GPUs shares its model; one across models shares its GPU.
  const auto gpu_pair = evaluate_calibration_pairs(cases, *catalog, {}, PairAcross::Gpu).pairs.front();
  const auto model_pair = evaluate_calibration_pairs(cases, *catalog, {}, PairAcross::Model).pairs.front();
  EXPECT_NE(gpu_pair.fixed.find(' '), std::string::npos) << gpu_pair.fixed;  // "model quant"
  EXPECT_NE(model_pair.from.find(' '), std::string::npos) << model_pair.from;
}

}  // namespace
}  // namespace sm::calc
