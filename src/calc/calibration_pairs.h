#pragma once
// How much `calc --calibrate-from` helps, measured on held-out pairs of the corpus (issue 35
// point 5; docs/calculator.md, "Calibrating from a run, measured"): where one source measured the
// same model, quantisation and engine on two GPUs, the engine is fitted to the rows of one GPU
// (as --calibrate-from fits it to a user's run) and predicts the rows of the other, beside the
// starting parameters' predictions of the same rows. The starting parameters are what `calc`
// would predict with had the pair's source not been in the corpus: the engines fitted to the
// corpus refitted without that source (as leave-one-source-out cross-validation does), the
// others as shipped (they never saw it). No prediction saw its row.
#include <set>
#include <string>
#include <vector>

#include "calc/catalog.h"
#include "calc/corpus.h"
#include "calc/fit.h"

namespace sm::calc {

/// What a pair holds fixed and what differs between its two sides.
enum class PairAcross {
  Gpu,    ///< the same model and quantisation on another GPU (a published run, another machine)
  Model,  ///< another model or quantisation on the same GPU (--calibrate-from's own use)
};

struct CalibrationPair {
  std::string source, engine;
  std::string fixed;             ///< what both sides share: "llama-3.1-8b q4_k_m", or the GPU
  std::string from, to;          ///< the side fitted and the side predicted: GPUs, or models"
  size_t from_rows = 0;          ///< rows the engine was fitted to
  size_t to_rows = 0;            ///< rows predicted
  double before_median_abs = 0;  ///< median |error| of the target rows with the starting parameters
  double after_median_abs = 0;   ///< ... with the parameters fitted to the other GPU's rows
};

struct CalibrationPairs {
  std::vector<CalibrationPair> pairs;
  std::vector<double> before, after;  ///< signed errors of every target row of every pair
};

/// Every ordered pair within a source × engine: of GPUs sharing a model and quantisation, or of
/// models (with their quantisation) sharing a GPU (usable rows only). `start` gives each engine's
/// parameters before any fit; the engines in `refit` are first fitted to every row of other sources.
CalibrationPairs evaluate_calibration_pairs(const std::vector<CorpusCase>& cases, const Catalog& start,
                                            const std::set<std::string>& refit, PairAcross across);

/// The pairs and the overall before/after as a plain-text table.
std::string calibration_pairs_table(const CalibrationPairs& result);

}  // namespace sm::calc
