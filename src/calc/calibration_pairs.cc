#include "calc/calibration_pairs.h"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <tuple>

namespace sm::calc {

namespace {

std::string gpu_label(const CorpusCase& c) {
  return c.setup.gpus > 1 ? fmt::format("{}x {}", c.setup.gpus, c.setup.gpu.id) : c.setup.gpu.id;
}

double median_abs(const std::vector<double>& errors) { return error_stats(errors).median_abs; }

}  // namespace

CalibrationPairs evaluate_calibration_pairs(const std::vector<CorpusCase>& cases, const Catalog& start,
                                            const std::set<std::string>& refit, PairAcross across) {
  // source, engine, what is fixed -> what differs -> its rows
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::map<std::string, std::vector<CorpusCase>>> groups;
  for (const auto& c : cases) {
    if (!c.usable) continue;
    const std::string model = c.setup.model.id + " " + c.setup.quant.id;
    const bool by_gpu = across == PairAcross::Gpu;
    groups[{c.row.source_id, c.setup.engine.id, by_gpu ? model : gpu_label(c)}][by_gpu ? gpu_label(c) : model].push_back(c);
  }
  CalibrationPairs out;
  for (const auto& [key, by_gpu] : groups) {
    if (by_gpu.size() < 2) continue;
    auto catalog_engine = start.find_engine(std::get<1>(key));
    if (!catalog_engine) continue;
    // What `calc` would predict with had this source not been in the corpus.
    const EngineParams before_params = refit.count(catalog_engine->id)
                                           ? fit_engine(cases, *catalog_engine, std::get<0>(key)).params
                                           : *catalog_engine;
    const EngineParams* engine = &before_params;
    for (const auto& [from_side, from_rows] : by_gpu) {
      const FitResult fit = fit_engine(from_rows, *engine);
      for (const auto& [to_side, to_rows] : by_gpu) {
        if (to_side == from_side) continue;
        CalibrationPair p{std::get<0>(key), std::get<1>(key), std::get<2>(key), from_side, to_side,
                          from_rows.size(), to_rows.size()};
        std::vector<double> before, after;
        for (const auto& c : to_rows) {
          before.push_back(predict_corpus_value(c, *engine) / c.row.value - 1.0);
          after.push_back(predict_corpus_value(c, fit.params) / c.row.value - 1.0);
        }
        p.before_median_abs = median_abs(before);
        p.after_median_abs = median_abs(after);
        out.before.insert(out.before.end(), before.begin(), before.end());
        out.after.insert(out.after.end(), after.begin(), after.end());
        out.pairs.push_back(std::move(p));
      }
    }
  }
  return out;
}

std::string calibration_pairs_table(const CalibrationPairs& r) {
  std::string text = fmt::format("{:<6} {:<10} {:<28} {:<52}  {:>4} {:>4}  {:>7} {:>7}\n", "source", "engine",
                                 "both", "fitted on -> predicted", "fit", "rows", "before", "after");
  for (const auto& p : r.pairs)
    text += fmt::format("{:<6} {:<10} {:<28} {:<52}  {:>4} {:>4}  {:>6.1f}% {:>6.1f}%\n", p.source, p.engine, p.fixed,
                        p.from + " -> " + p.to, p.from_rows, p.to_rows, 100 * p.before_median_abs,
                        100 * p.after_median_abs);
  const ErrorStats before = error_stats(r.before), after = error_stats(r.after);
  size_t better = 0;
  for (const auto& p : r.pairs) better += p.after_median_abs < p.before_median_abs;
  text += fmt::format(
      "{} pairs, {} predicted rows: median |error| {:.1f}% -> {:.1f}%, within +-25% {:.0f}% -> {:.0f}%, median "
      "signed {:+.1f}% -> {:+.1f}%; calibration helped in {} of {} pairs\n",
      r.pairs.size(), before.n, 100 * before.median_abs, 100 * after.median_abs, 100 * before.within25,
      100 * after.within25, 100 * before.bias, 100 * after.bias, better, r.pairs.size());
  return text;
}

}  // namespace sm::calc
