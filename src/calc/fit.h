#pragma once
// `speedmatrix calc fit`: fits each engine's performance-model parameters to the usable rows of
// the calibration corpus (calc/corpus.h), and leave-one-source-out cross-validation of that fit.
//
//   auto cases = map_corpus(rows, catalog);
//   FitResult fit = fit_engine(cases, *catalog.find_engine("vllm"));   // rows of that engine only
//   write engine_file_json({fit.params}) to a file `calc --engine-file` reads
//   CrossValidation cv = cross_validate(cases, catalog);               // every row predicted by a
//                                                                      // fit that never saw its source
//
// The loss is Σ w · ρ(ln(predicted / measured)) with the soft-L1 robust loss
// ρ(r) = 2 s² (√(1 + (r/s)²) − 1), s = 0.15 (quadratic near 0, linear beyond ~15%), and weights
// 1/√(rows of the row's source) so that one large source does not outvote the others. Parameters
// are bounded (kFitBounds) through a logistic transform and minimised with Nelder–Mead.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/catalog.h"
#include "calc/corpus.h"

namespace sm::calc {

/// One fitted parameter and its physically plausible range.
struct FitBound {
  const char* name;  ///< engines.json key
  double lo, hi;
};

/// The parameters `calc fit` fits, with their bounds.
const std::vector<FitBound>& fit_bounds();

/// The value of fitted parameter `name` (a fit_bounds() name) in engines.json units, an unset
/// optional efficiency reading as the value the model uses in its place.
double fit_param_value(const EngineParams& e, std::string_view name);

/// One row's prediction next to its measurement.
struct Residual {
  const CorpusCase* c = nullptr;
  double predicted = 0;
  double measured = 0;
  /// predicted / measured − 1 (signed relative error of the figure as published)
  double error() const { return predicted / measured - 1.0; }
};

struct FitResult {
  EngineParams params;     ///< the fitted engine (source and notes say so)
  size_t rows = 0;         ///< usable rows of the engine the fit used
  double loss_before = 0;  ///< the loss with the starting (catalog) parameters
  double loss = 0;         ///< after the fit
  int evaluations = 0;
  std::vector<Residual> residuals;  ///< every row used, with the fitted parameters
};

/// Fits `start`'s fitted parameters to the usable cases whose engine is start.id, skipping the
/// rows of `exclude_source` (leave-one-source-out). With no rows, returns `start` unchanged.
FitResult fit_engine(const std::vector<CorpusCase>& cases, const EngineParams& start,
                     const std::string& exclude_source = "");

/// Statistics of a set of residuals.
struct ErrorStats {
  size_t n = 0;
  double median_abs = 0;  ///< median |error|
  double p90_abs = 0;     ///< 90th percentile of |error|
  double bias = 0;        ///< median signed error (positive: the model predicts too fast)
  double within25 = 0;    ///< fraction of rows with |error| ≤ 25%
  double p80_abs = 0;     ///< 80th percentile of |error| (the half-width of an 80% interval)
};
ErrorStats error_stats(const std::vector<double>& errors);

struct CrossValidation {
  std::vector<Residual> residuals;  ///< every usable row, predicted by a fit without its source
  std::vector<std::string> unfitted_sources;  ///< sources whose engine had no rows outside them (catalog values used)
};

/// Leave-one-source-out: for every source, fits each engine on the other sources' rows and
/// predicts the source's rows.
CrossValidation cross_validate(const std::vector<CorpusCase>& cases, const Catalog& catalog);

/// The 80% interval half-widths (EngineParams::error_80) of `engine_id` from cross-validation
/// residuals: "family/class" for every class with at least `min_rows` rows, "family/all" for
/// every family with at least `min_rows`.
std::map<std::string, double> error_intervals(const std::vector<Residual>& residuals, const std::string& engine_id,
                                              size_t min_rows = 5);

/// Table text: one line per (engine, GPU class, family) and per family overall, columns rows,
/// median |err|, p90 |err|, within ±25%, bias.
std::string error_table(const std::vector<Residual>& residuals);

/// {"engines": [...]} in data/engines.json's layout, every field, for --engine-file.
nlohmann::json engine_file_json(const std::vector<EngineParams>& engines);

}  // namespace sm::calc
