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
#include <set>
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
/// predicts the source's rows. With `refit` given, only the engines it names are refitted per
/// fold (those whose shipped values were themselves fitted to the corpus); every other engine's
/// rows are predicted with `catalog`'s values as they are — the values `calc` predicts with, which
/// never saw the corpus, so their residuals are held out already.
CrossValidation cross_validate(const std::vector<CorpusCase>& cases, const Catalog& catalog,
                               const std::set<std::string>* refit = nullptr);

/// The engine ids an engine file lists (`{"engines": [{"id": ...}, ...]}`): for
/// cv-start-engines.json, the engines cross_validate refits per fold.
Result<std::set<std::string>> engine_ids_in_file(const std::string& path);

/// Every usable row predicted with `catalog`'s engine values as they are (no fit): the shipped
/// parameters' error, in sample for an engine whose values were fitted to these rows.
std::vector<Residual> predict_cases(const std::vector<CorpusCase>& cases, const Catalog& catalog);

// ---- 80% error bands calibrated on held-out residuals (issue 35 point 1) ----
//
// A band is the half-width q of |predicted/measured − 1| ≤ q for one engine, family (decode or
// prefill) and GPU class ("all": every class), taken from held-out (leave-one-source-out)
// residuals as the split-conformal quantile: the ⌈0.8 (n + 1)⌉-th smallest of the n |errors|,
// rounded up to 0.001. A group with fewer than kBandMinRows rows or kBandMinSources sources has
// little evidence: its band is the wider of kLittleEvidenceBand and its largest |error|, and it
// says so. A band's coverage is measured on rows it was not calibrated on: each source's rows are
// checked against the band computed without that source (band_coverage).

inline constexpr double kBandLevel = 0.8;
inline constexpr size_t kBandMinRows = 5;
inline constexpr size_t kBandMinSources = 2;
/// The band of a group with little evidence: ±200%, i.e. a prediction up to 3× the measured figure.
inline constexpr double kLittleEvidenceBand = 2.0;

struct Band {
  double half_width = 0;         ///< q: |predicted/measured − 1| ≤ q for 80% of rows
  bool little_evidence = false;  ///< fewer than kBandMinRows rows or kBandMinSources sources
  size_t rows = 0;
  size_t sources = 0;
};

/// The band of (engine_id, family, gpu_class; "all" = every class) from `held_out` residuals,
/// leaving out the rows of `exclude_source`.
Band calibrated_band(const std::vector<Residual>& held_out, const std::string& engine_id, std::string_view family,
                     const std::string& gpu_class, const std::string& exclude_source = "");

/// Every band of `engine_id`: "family/class" for each family and GPU class it has rows of. (No
/// "family/all" band: a prediction always knows its GPU's class, and one of a class without rows
/// gets the little-evidence band.)
std::map<std::string, Band> calibrated_bands(const std::vector<Residual>& held_out, const std::string& engine_id);

/// Whether each residual lies inside the band a prediction prints for it (its engine, family and
/// GPU class), that band calibrated without the residual's source. One entry per residual.
std::vector<bool> band_coverage(const std::vector<Residual>& held_out);

/// EngineParams::error_80 (half-widths) and the keys with little evidence, from calibrated_bands.
std::map<std::string, double> error_intervals(const std::map<std::string, Band>& bands);
std::vector<std::string> little_evidence_keys(const std::map<std::string, Band>& bands);

/// Table text: one line per (engine, GPU class, family) and per family overall, columns rows,
/// median |err|, p90 |err|, within ±25%, bias. With `bands` (the held-out residuals themselves),
/// also each (engine, family, class) line's 80% band and the share of its rows inside it, measured
/// on sources the band was not calibrated on (band_coverage; lines over every class or engine
/// count each row against its own band), and "little evidence" where a band has too few rows or
/// sources.
std::string error_table(const std::vector<Residual>& residuals, bool bands = false);

/// {"engines": [...]} in data/engines.json's layout, every field, for --engine-file.
nlohmann::json engine_file_json(const std::vector<EngineParams>& engines);

}  // namespace sm::calc
