#include "calc/fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <numeric>
#include <set>

#include <array>
#include <fstream>

#include <fmt/format.h>

#include "metrics/stats.h"

namespace sm::calc {

namespace {

constexpr double kLossScale = 0.15;  // soft-L1 scale on log error
constexpr double kPriorWidth = 0.7;  // a factor of 2 from the start costs about one unit ...
constexpr double kPriorWeight = 0.01;  // ... times this, i.e. like one row 10% off

double& param_ref(EngineParams& e, std::string_view name) {
  if (name == "bandwidth_efficiency") return e.bandwidth_efficiency;
  if (name == "decode_compute_efficiency") return e.decode_compute_efficiency;
  if (name == "prefill_compute_efficiency") return e.prefill_compute_efficiency;
  if (name == "step_overhead_ms") return e.step_overhead_s;
  if (name == "attention_bandwidth_efficiency") return e.attention_bandwidth_efficiency;
  if (name == "no_flash_attention_efficiency") return e.no_flash_attention_efficiency;
  if (name == "no_flash_attention_prefill_efficiency") return e.no_flash_attention_prefill_efficiency;
  if (name == "expert_gemm_half_rows") return e.expert_gemm_half_rows;
  if (name == "die_sync_ms_per_layer") return e.die_sync_s_per_layer;
  return e.tp_loss_per_extra_gpu;
}

// The value in the engine's own units (seconds for the overhead), bounds in engines.json units.
double scale_of(std::string_view name) {
  return name == "step_overhead_ms" || name == "die_sync_ms_per_layer" ? 1e-3 : 1.0;
}

double logistic(double z) { return 1.0 / (1.0 + std::exp(-z)); }
double to_z(double v, double lo, double hi) {
  const double u = std::clamp((v - lo) / (hi - lo), 1e-4, 1.0 - 1e-4);
  return std::log(u / (1.0 - u));
}

void set_params(EngineParams& e, const std::vector<double>& z) {
  const auto& b = fit_bounds();
  for (size_t i = 0; i < b.size(); ++i)
    param_ref(e, b[i].name) = (b[i].lo + (b[i].hi - b[i].lo) * logistic(z[i])) * scale_of(b[i].name);
}

// Nelder–Mead (Lagarias et al. coefficients 1, 2, 0.5, 0.5) from x0 with initial step `step`.
std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0,
                                double step, int max_evals, int& evals) {
  const size_t n = x0.size();
  std::vector<std::vector<double>> x(n + 1, x0);
  std::vector<double> fx(n + 1);
  for (size_t i = 0; i < n; ++i) x[i + 1][i] += step;
  for (size_t i = 0; i <= n; ++i) fx[i] = f(x[i]);
  evals = static_cast<int>(n + 1);
  std::vector<size_t> order(n + 1);
  while (evals < max_evals) {
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fx[a] < fx[b]; });
    const size_t best = order.front(), worst = order.back(), second = order[n - 1];
    if (std::abs(fx[worst] - fx[best]) <= 1e-9 * (1.0 + std::abs(fx[best]))) break;
    std::vector<double> centroid(n, 0.0);
    for (size_t k = 0; k < n; ++k)
      for (size_t i = 0; i < n; ++i) centroid[i] += x[order[k]][i] / static_cast<double>(n);
    auto along = [&](double t) {
      std::vector<double> p(n);
      for (size_t i = 0; i < n; ++i) p[i] = centroid[i] + t * (x[worst][i] - centroid[i]);
      return p;
    };
    auto xr = along(-1.0);
    const double fr = f(xr);
    ++evals;
    if (fr < fx[best]) {
      auto xe = along(-2.0);
      const double fe = f(xe);
      ++evals;
      if (fe < fr) { x[worst] = xe; fx[worst] = fe; } else { x[worst] = xr; fx[worst] = fr; }
    } else if (fr < fx[second]) {
      x[worst] = xr;
      fx[worst] = fr;
    } else {
      auto xc = fr < fx[worst] ? along(-0.5) : along(0.5);
      const double fc = f(xc);
      ++evals;
      if (fc < std::min(fr, fx[worst])) {
        x[worst] = xc;
        fx[worst] = fc;
      } else {
        for (size_t k = 1; k <= n; ++k) {
          const size_t j = order[k];
          for (size_t i = 0; i < n; ++i) x[j][i] = x[best][i] + 0.5 * (x[j][i] - x[best][i]);
          fx[j] = f(x[j]);
          ++evals;
        }
      }
    }
  }
  const size_t best = static_cast<size_t>(std::min_element(fx.begin(), fx.end()) - fx.begin());
  return x[best];
}


}  // namespace

const std::vector<FitBound>& fit_bounds() {
  // Efficiencies: fractions of datasheet figures that published kernels reach (memory-bound
  // kernels 30-95%, tensor-core matmuls 5-90%); a step's fixed cost 0.05-30 ms (CUDA graphs to
  // uncaptured Python schedulers); tensor parallelism loses 0-30% per extra GPU.
  static const std::vector<FitBound> b = {{"bandwidth_efficiency", 0.3, 0.95},
                                          {"decode_compute_efficiency", 0.05, 0.9},
                                          {"prefill_compute_efficiency", 0.05, 0.9},
                                          {"step_overhead_ms", 0.05, 30},
                                          {"tp_loss_per_extra_gpu", 0.0, 0.3},
                                          {"attention_bandwidth_efficiency", 0.05, 0.95},
                                          {"no_flash_attention_efficiency", 0.002, 0.9},
                                          {"no_flash_attention_prefill_efficiency", 0.005, 0.9},
                                          {"expert_gemm_half_rows", 1, 1000},
                                          {"die_sync_ms_per_layer", 0.001, 2}};
  return b;
}

namespace {

// Parameters an engine may leave unset (0): the fit starts them from a stand-in, puts no prior on
// them, and leaves them as they were when no row it fits to constrains them.
struct OptionalParam {
  std::string_view name;
  double (*stand_in)(const EngineParams&);  ///< start value when unset, in the engine's own units
  bool (*constrains)(const CorpusCase&);    ///< whether a row says anything about it
};

bool without_flash_attention(const CorpusCase& c) { return !c.setup.flash_attention; }

const std::array<OptionalParam, 4>& optional_params() {
  static const std::array<OptionalParam, 4> p = {{
      // attention without flash attention starts at decode's and prefill's efficiencies ...
      {"no_flash_attention_efficiency", [](const EngineParams& e) { return e.decode_compute_efficiency; },
       without_flash_attention},
      {"no_flash_attention_prefill_efficiency", [](const EngineParams& e) { return e.prefill_compute_efficiency; },
       without_flash_attention},
      // ... the expert matmuls' half rate at a 32-row tile, the dies' sync at 0.05 ms a layer.
      {"expert_gemm_half_rows", [](const EngineParams&) { return 32.0; },
       [](const CorpusCase& c) { return c.setup.model.experts > 0 && metric_family(c.metric) == "prefill"; }},
      {"die_sync_ms_per_layer", [](const EngineParams&) { return 0.05e-3; },
       [](const CorpusCase& c) { return c.setup.gpu.dies > 1; }},
  }};
  return p;
}

}  // namespace

double fit_param_value(const EngineParams& e, std::string_view name) {
  EngineParams copy = e;
  if (name == "attention_bandwidth_efficiency" && copy.attention_bandwidth_efficiency <= 0) return e.bandwidth_efficiency;
  if (name == "no_flash_attention_efficiency" && copy.no_flash_attention_efficiency <= 0) return e.decode_compute_efficiency;
  if (name == "no_flash_attention_prefill_efficiency" && copy.no_flash_attention_prefill_efficiency <= 0)
    return e.prefill_compute_efficiency;
  return param_ref(copy, name) / scale_of(name);
}

FitResult fit_engine(const std::vector<CorpusCase>& cases, const EngineParams& start,
                     const std::string& exclude_source) {
  FitResult out;
  out.params = start;
  EngineParams start_filled = start;  // an unset attention efficiency starts at the weights' one
  if (start_filled.attention_bandwidth_efficiency <= 0)
    start_filled.attention_bandwidth_efficiency = start_filled.bandwidth_efficiency;
  EngineParams start_values_as_given = start;
  for (const OptionalParam& o : optional_params())
    if (param_ref(start_filled, o.name) <= 0) param_ref(start_filled, o.name) = o.stand_in(start_filled);
  std::vector<const CorpusCase*> used;
  std::map<std::string, int> per_source;
  for (const auto& c : cases)
    if (c.usable && c.setup.engine.id == start.id && c.row.source_id != exclude_source) {
      used.push_back(&c);
      ++per_source[c.row.source_id];
    }
  out.rows = used.size();
  std::vector<double> weight;
  for (const auto* c : used) weight.push_back(1.0 / std::sqrt(static_cast<double>(per_source[c->row.source_id])));

  auto loss_of = [&](const EngineParams& e) {
    double sum = 0;
    for (size_t i = 0; i < used.size(); ++i) {
      const double p = predict_corpus_value(*used[i], e);
      const double r = (std::isfinite(p) && p > 0) ? std::log(p / used[i]->row.value) : 5.0;
      const double u = r / kLossScale;
      sum += weight[i] * 2.0 * kLossScale * kLossScale * (std::sqrt(1.0 + u * u) - 1.0);
    }
    return sum;
  };
  // A weak prior at the starting values (the seed-page fit): each parameter's log-distance from
  // its start costs (ln(v/v0)/kPriorWidth)² × kPriorWeight, so an engine with few rows keeps its
  // catalog values where the rows do not constrain them (e.g. compute efficiency when every row
  // is memory-bound). tp_loss uses an absolute distance (its start may be 0).
  const auto& bounds = fit_bounds();
  std::vector<double> start_values;
  {
    EngineParams tmp = start_filled;
    for (const auto& b : bounds) start_values.push_back(std::max(param_ref(tmp, b.name), 1e-9));
  }
  // An efficiency the catalog leaves unset has no value to keep: no prior on it.
  auto unset_in_start = [&](std::string_view name) {
    return std::any_of(optional_params().begin(), optional_params().end(), [&](const OptionalParam& o) {
      return o.name == name && param_ref(start_values_as_given, name) <= 0;
    });
  };
  auto prior_of = [&](EngineParams& e) {
    double sum = 0;
    for (size_t i = 0; i < bounds.size(); ++i) {
      if (unset_in_start(bounds[i].name)) continue;
      const double v = param_ref(e, bounds[i].name);
      const double d = std::string_view(bounds[i].name) == "tp_loss_per_extra_gpu"
                           ? (v - start_values[i]) / 0.1
                           : std::log(std::max(v, 1e-9) / start_values[i]) / kPriorWidth;
      sum += kPriorWeight * d * d;
    }
    return sum;
  };
  auto objective = [&](EngineParams& e) { return loss_of(e) + prior_of(e); };
  out.loss_before = loss_of(start);
  out.loss = out.loss_before;
  if (!used.empty()) {
    const auto& b = fit_bounds();
    std::vector<double> z0(b.size());
    EngineParams work = start_filled;
    for (size_t i = 0; i < b.size(); ++i)
      z0[i] = to_z(param_ref(work, b[i].name) / scale_of(b[i].name), b[i].lo, b[i].hi);
    auto f = [&](const std::vector<double>& z) {
      set_params(work, z);
      return objective(work);
    };
    // Restarts the simplex at the best point until a pass no longer improves (Nelder–Mead
    // stalls on a collapsed simplex).
    auto descend = [&](std::vector<double> from, double& best) {
      int evals = 0;
      auto z = nelder_mead(f, std::move(from), 1.0, 800, evals);
      out.evaluations += evals;
      best = f(z);
      for (int pass = 0; pass < 8; ++pass) {
        z = nelder_mead(f, z, 0.3, 600, evals);
        out.evaluations += evals;
        const double now = f(z);
        if (now > best - 1e-10) break;
        best = now;
      }
      return z;
    };
    double best = 0;
    auto z = descend(z0, best);
    // Attention without flash attention only costs time once its arithmetic outgrows the KV read:
    // above that the loss is flat in its efficiency and the simplex never leaves the start. So the
    // fit also starts from low values of it and keeps the best.
    const bool any_without_fa =
        std::any_of(used.begin(), used.end(), [](const CorpusCase* c) { return !c->setup.flash_attention; });
    for (size_t i = 0; i < b.size() && any_without_fa; ++i)
      if (std::string_view(b[i].name) == "no_flash_attention_efficiency")
        for (double low : {0.005, 0.03}) {
          std::vector<double> from = z;
          from[i] = to_z(low, b[i].lo, b[i].hi);
          double other = 0;
          auto z2 = descend(from, other);
          if (other < best) {
            best = other;
            z = z2;
          }
        }
    set_params(work, z);
    // An optional parameter no row constrains (no row without flash attention, no MoE prefill
    // row, no GPU of several dies) keeps its start as given.
    for (const OptionalParam& o : optional_params())
      if (std::none_of(used.begin(), used.end(), [&](const CorpusCase* c) { return o.constrains(*c); }))
        param_ref(work, o.name) = param_ref(start_values_as_given, o.name);
    const double fitted = loss_of(work);
    EngineParams start_copy = start_filled;
    if (objective(work) < objective(start_copy)) {
      out.params = work;
      out.loss = fitted;
    }
  }
  for (const auto* c : used) out.residuals.push_back({c, predict_corpus_value(*c, out.params), c->row.value});
  return out;
}

Result<std::set<std::string>> engine_ids_in_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::InvalidArgument, fmt::format("cannot read {}", path));
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.contains("engines") || !doc["engines"].is_array())
    return fail(ErrorCode::InvalidArgument, fmt::format("{} is not an engine file ({{\"engines\": [...]}})", path));
  std::set<std::string> ids;
  for (const auto& e : doc["engines"])
    if (e.is_object() && e.contains("id") && e["id"].is_string()) ids.insert(e["id"].get<std::string>());
  return ids;
}

ErrorStats error_stats(const std::vector<double>& errors) {
  ErrorStats s;
  s.n = errors.size();
  if (errors.empty()) return s;
  std::vector<double> abs;
  for (double e : errors) abs.push_back(std::abs(e));
  s.median_abs = percentile(abs, 0.5);
  s.p80_abs = percentile(abs, 0.8);
  s.p90_abs = percentile(abs, 0.9);
  std::vector<double> signed_errors = errors;
  s.bias = percentile(signed_errors, 0.5);
  s.within25 = static_cast<double>(std::count_if(abs.begin(), abs.end(), [](double a) { return a <= 0.25; })) /
               static_cast<double>(abs.size());
  return s;
}

CrossValidation cross_validate(const std::vector<CorpusCase>& cases, const Catalog& catalog,
                               const std::set<std::string>* refit) {
  CrossValidation cv;
  std::set<std::string> sources;
  for (const auto& c : cases)
    if (c.usable) sources.insert(c.row.source_id);
  for (const auto& source : sources) {
    std::set<std::string> engines;
    for (const auto& c : cases)
      if (c.usable && c.row.source_id == source) engines.insert(c.setup.engine.id);
    for (const auto& engine_id : engines) {
      auto start = catalog.find_engine(engine_id);
      if (!start) continue;
      EngineParams params = *start;  // an engine not refitted: its values as `calc` uses them
      if (!refit || refit->count(engine_id)) {
        FitResult fit = fit_engine(cases, *start, source);
        if (fit.rows == 0) cv.unfitted_sources.push_back(source + " (" + engine_id + ")");
        params = fit.params;
      }
      for (const auto& c : cases)
        if (c.usable && c.row.source_id == source && c.setup.engine.id == engine_id)
          cv.residuals.push_back({&c, predict_corpus_value(c, params), c.row.value});
    }
  }
  return cv;
}

std::vector<Residual> predict_cases(const std::vector<CorpusCase>& cases, const Catalog& catalog) {
  std::vector<Residual> out;
  for (const auto& c : cases) {
    if (!c.usable) continue;
    auto engine = catalog.find_engine(c.setup.engine.id);
    if (!engine) continue;
    out.push_back({&c, predict_corpus_value(c, *engine), c.row.value});
  }
  return out;
}

Band calibrated_band(const std::vector<Residual>& held_out, const std::string& engine_id, std::string_view family,
                     const std::string& gpu_class, const std::string& exclude_source) {
  std::vector<double> abs_errors;
  std::set<std::string> sources;
  for (const auto& r : held_out) {
    if (r.c->setup.engine.id != engine_id || metric_family(r.c->metric) != family) continue;
    if (gpu_class != "all" && r.c->row.gpu_class != gpu_class) continue;
    if (r.c->row.source_id == exclude_source) continue;
    abs_errors.push_back(std::abs(r.error()));
    sources.insert(r.c->row.source_id);
  }
  std::sort(abs_errors.begin(), abs_errors.end());
  Band b;
  b.rows = abs_errors.size();
  b.sources = sources.size();
  // Split-conformal rank: with n exchangeable held-out errors, the ⌈level (n + 1)⌉-th smallest
  // bounds a new one with probability ≥ level.
  const auto rank = static_cast<size_t>(std::ceil(kBandLevel * static_cast<double>(b.rows + 1) - 1e-9));
  double q = 0;
  if (b.rows >= kBandMinRows && b.sources >= kBandMinSources && rank <= b.rows) {
    q = abs_errors[rank - 1];
  } else {
    b.little_evidence = true;
    q = std::max(kLittleEvidenceBand, abs_errors.empty() ? 0.0 : abs_errors.back());
  }
  b.half_width = std::ceil(q * 1000.0 - 1e-9) / 1000.0;  // rounded up: the written band is the scored one
  return b;
}

std::map<std::string, Band> calibrated_bands(const std::vector<Residual>& held_out, const std::string& engine_id) {
  std::map<std::string, Band> out;
  for (const auto& r : held_out) {
    if (r.c->setup.engine.id != engine_id) continue;
    const std::string family(metric_family(r.c->metric));
    const std::string key = family + "/" + r.c->row.gpu_class;
    if (!out.count(key)) out[key] = calibrated_band(held_out, engine_id, family, r.c->row.gpu_class);
  }
  return out;
}

std::vector<bool> band_coverage(const std::vector<Residual>& held_out) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, double> cache;
  std::vector<bool> inside;
  for (const auto& r : held_out) {
    const std::string family(metric_family(r.c->metric));
    const std::string& cls = r.c->row.gpu_class;
    const auto key = std::make_tuple(r.c->setup.engine.id, family, cls, r.c->row.source_id);
    auto it = cache.find(key);
    if (it == cache.end())
      it = cache.emplace(key, calibrated_band(held_out, r.c->setup.engine.id, family, cls, r.c->row.source_id).half_width)
               .first;
    inside.push_back(std::abs(r.error()) <= it->second);
  }
  return inside;
}

std::map<std::string, double> error_intervals(const std::map<std::string, Band>& bands) {
  std::map<std::string, double> out;
  for (const auto& [key, band] : bands) out[key] = band.half_width;
  return out;
}

std::vector<std::string> little_evidence_keys(const std::map<std::string, Band>& bands) {
  std::vector<std::string> out;
  for (const auto& [key, band] : bands)
    if (band.little_evidence) out.push_back(key);
  return out;
}

std::string error_table(const std::vector<Residual>& residuals, bool bands) {
  // (family, engine, class) -> residual indices; "all" rows per family and per family × engine.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < residuals.size(); ++i) {
    const auto& r = residuals[i];
    const std::string family(metric_family(r.c->metric));
    const std::string& engine = r.c->setup.engine.id;
    const std::string& cls = r.c->row.gpu_class;
    groups[{family, engine, cls}].push_back(i);
    groups[{family, engine, "all"}].push_back(i);
    groups[{family, "all", cls}].push_back(i);
    groups[{family, "all", "all"}].push_back(i);
  }
  const std::vector<bool> inside = bands ? band_coverage(residuals) : std::vector<bool>{};
  std::string out = fmt::format("{:<8} {:<9} {:<12} {:>5} {:>9} {:>9} {:>8} {:>7}", "family", "engine", "gpu class",
                                "rows", "median|e|", "p90|e|", "in ±25%", "bias");
  out += bands ? fmt::format(" {:>9} {:>12}\n", "80% band", "in 80% band") : "\n";
  for (const auto& [key, indices] : groups) {
    const auto& [family, engine, cls] = key;
    std::vector<double> errors;
    for (size_t i : indices) errors.push_back(residuals[i].error());
    const ErrorStats s = error_stats(errors);
    out += fmt::format("{:<8} {:<9} {:<12} {:>5} {:>8.1f}% {:>8.1f}% {:>7.0f}% {:>+6.1f}%", family, engine, cls, s.n,
                       100 * s.median_abs, 100 * s.p90_abs, 100 * s.within25, 100 * s.bias);
    if (bands) {
      // Lines over several classes or engines count each row against the band of its own engine
      // and class (the one its prediction prints); they have no band of their own.
      const auto covered = std::count_if(indices.begin(), indices.end(), [&](size_t i) { return inside[i]; });
      const double share = static_cast<double>(covered) / static_cast<double>(indices.size());
      if (engine == "all" || cls == "all") {
        out += fmt::format(" {:>9} {:>11.0f}%", "-", 100 * share);
      } else {
        const Band b = calibrated_band(residuals, engine, family, cls);
        out += fmt::format(" {:>8.1f}% {:>11.0f}%", 100 * b.half_width, 100 * share);
        if (b.little_evidence)
          out += fmt::format("  little evidence ({} row{}, {} source{})", b.rows, b.rows == 1 ? "" : "s", b.sources,
                             b.sources == 1 ? "" : "s");
      }
    }
    out += "\n";
  }
  return out;
}

nlohmann::json engine_file_json(const std::vector<EngineParams>& engines) {
  nlohmann::json list = nlohmann::json::array();
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  auto round = [](double v, double digits) { return std::round(v * digits) / digits; };
  for (const auto& e : engines) {
    list.push_back({{"id", e.id},
                    {"name", e.name},
                    {"aliases", e.aliases},
                    {"bandwidth_efficiency", round(e.bandwidth_efficiency, 1e4)},
                    {"decode_compute_efficiency", round(e.decode_compute_efficiency, 1e4)},
                    {"prefill_compute_efficiency", round(e.prefill_compute_efficiency, 1e4)},
                    {"step_overhead_ms", round(e.step_overhead_s * 1000.0, 1e4)},
                    {"shared_prefix_reuse", e.shared_prefix_reuse},
                    {"tp_loss_per_extra_gpu", round(e.tp_loss_per_extra_gpu, 1e4)},
                    {"default_gpu_mem_util", e.default_gpu_mem_util},
                    {"reserve_gib", static_cast<double>(e.reserve_bytes) / kGiB},
                    {"max_batched_tokens", e.max_batched_tokens},
                    {"max_batched_tokens_large_gpu", e.max_batched_tokens_large_gpu},
                    {"large_gpu_memory_gib", static_cast<double>(e.large_gpu_memory_bytes) / kGiB},
                    {"max_num_seqs", e.max_num_seqs},
                    {"request_overhead_ms", e.request_overhead_s * 1000.0},
                    {"tokenize_us_per_token", e.tokenize_s_per_token * 1e6},
                    {"source", e.source},
                    {"notes", e.notes}});
    if (e.attention_bandwidth_efficiency > 0)
      list.back()["attention_bandwidth_efficiency"] = round(e.attention_bandwidth_efficiency, 1e4);
    if (e.no_flash_attention_efficiency > 0)
      list.back()["no_flash_attention_efficiency"] = round(e.no_flash_attention_efficiency, 1e5);
    if (e.emulated_fp4_weight_efficiency > 0)
      list.back()["emulated_fp4_weight_efficiency"] = e.emulated_fp4_weight_efficiency;
    if (e.eager_overhead_s_per_layer > 0)
      list.back()["eager_overhead_ms_per_layer"] = round(e.eager_overhead_s_per_layer * 1000.0, 1e4);
    if (e.no_flash_attention_prefill_efficiency > 0)
      list.back()["no_flash_attention_prefill_efficiency"] = round(e.no_flash_attention_prefill_efficiency, 1e4);
    if (e.expert_gemm_half_rows > 0) list.back()["expert_gemm_half_rows"] = round(e.expert_gemm_half_rows, 1e2);
    if (e.die_sync_s_per_layer > 0) list.back()["die_sync_ms_per_layer"] = round(e.die_sync_s_per_layer * 1000.0, 1e4);
    // The combination rules travel with the engine (an engine file without them runs anything).
    if (!e.backends.empty()) list.back()["backends"] = e.backends;
    if (!e.quant_formats.empty()) list.back()["quant_formats"] = e.quant_formats;
    if (!e.experimental_quant_formats.empty()) list.back()["experimental_quant_formats"] = e.experimental_quant_formats;
    if (!e.error_80.empty()) {
      list.back()["error_80"] = e.error_80;
      if (!e.error_80_little_evidence.empty()) list.back()["error_80_little_evidence"] = e.error_80_little_evidence;
      list.back()["error_source"] = e.error_source;
    }
  }
  return {{"engines", list}};
}

}  // namespace sm::calc
