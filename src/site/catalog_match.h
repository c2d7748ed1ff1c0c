#pragma once
// Which entries of the calculator's catalog a stored run was measured on: its GPU (and how many),
// model, quantisation and engine. The site uses the match to put measured runs beside a
// prediction of the same setup (/calc) and to check an upload against the calculator's roofline
// (upload_checks.h).
//
//   const CatalogMatch m = match_run(run, catalog);
//   if (m.gpu && m.model && m.engine) ... key(m) ...
#include <optional>
#include <string>
#include <string_view>

#include "calc/catalog.h"
#include "result/result.h"
#include "store/store_types.h"

namespace sm::site {

struct CatalogMatch {
  std::optional<calc::GpuSpec> gpu;       ///< every GPU of the run is this one; none on unknown hardware
  int gpu_count = 0;                      ///< how many (0 without a GPU match)
  std::optional<calc::ModelShape> model;  ///< the served model, or the catalog model its name starts with
  std::optional<calc::QuantSpec> quant;   ///< the engine's quantisation, or the one the model name ends with
  std::optional<calc::EngineParams> engine;
};

/// Matches a run's GPU names ("NVIDIA GeForce RTX 3090": the vendor word is dropped), model
/// (model_path's file name, then the served id; "Qwen3.5-4B-AWQ-4bit" is tried as "Qwen3.5-4B-AWQ",
/// then "Qwen3.5-4B", the dropped tail naming the quantisation when the engine does not) and engine
/// kind against `catalog`. Simulated and predicted runs match like measured ones.
CatalogMatch match_run(const RunResult& run, const calc::Catalog& catalog);

/// The catalog GPU a reported GPU name stands for ("NVIDIA GeForce RTX 3090": the vendor word is
/// dropped if the whole name is not found).
std::optional<calc::GpuSpec> match_gpu_name(std::string_view name, const calc::Catalog& catalog);

/// The catalog model a served model name stands for (see match_run); `dropped_tail` receives the
/// part dropped from its end ("AWQ-4bit"), if any.
std::optional<calc::ModelShape> match_model_name(std::string_view name, const calc::Catalog& catalog,
                                                 std::string* dropped_tail = nullptr);

/// The store's key of a match; nullopt unless GPU, model and engine all matched.
std::optional<store::SetupKey> setup_key(const CatalogMatch& match);

/// Copies the match into a summary's calc_* columns (left empty when there is no full match).
void set_calc_columns(store::RunSummary& summary, const CatalogMatch& match);

}  // namespace sm::site
