#pragma once
// One name per GPU and per model (docs/site.md, "One name per GPU and model"). Drivers name one
// card many ways ("NVIDIA H100 80GB HBM3", "H100 SXM 80 GB") and uploads name one model many
// ways ("Qwen/Qwen3-8B", "Qwen3-8B-AWQ", "qwen3-8b-q4_k_m.gguf"); the site groups, filters and
// ranks by the canonical name and keeps the reported one beside it.
//
//   const CatalogMatch match = match_run(run, catalog);
//   apply_canonical_names(summary, run, match, catalog);   // summary.gpu "H100 SXM 80GB", gpu_reported ...
#include <string>
#include <string_view>

#include "calc/catalog.h"
#include "result/result.h"
#include "site/catalog_match.h"
#include "site/query_string.h"
#include "store/run_summary.h"

namespace sm::site {

/// A model name split into the model and the quantisation its name carries.
struct CanonicalModel {
  std::string name;          ///< "Qwen3.5-4B"; the catalog's name when the catalog knows the model
  std::string quantization;  ///< "AWQ 4-bit" (the catalog's name), "bnb-4bit" (as written), or ""
};

/// Splits a model's display name (no organisation, no ".gguf": report::model_display_name) into
/// the model and the quantisation or file format its tail names: "Qwen3.5-4B-AWQ-4bit" →
/// {"Qwen3.5-4B", "AWQ 4-bit"}; "llama-3.1-8b-instruct-q4_k_m" → {"Llama-3.1-8B", "GGUF Q4_K_M"};
/// "qwen3:8b-q4_K_M" (Ollama) → {"qwen3:8b", "GGUF Q4_K_M"}; a split GGUF's "-00001-of-00003" is
/// dropped. A model the catalog knows (its id, name or an alias, instruct variants included) takes
/// the catalog's name.
CanonicalModel canonical_model(std::string_view display_name, const calc::Catalog& catalog);

/// The hardware title of a run whose GPUs matched the catalog: the catalog's name for each, as
/// the report titles hardware ("H100 SXM 80GB", "2× RTX 3090 24GB"); "" without a GPU match.
std::string canonical_hardware_title(const HardwareInfo& hardware, const CatalogMatch& match);

/// Puts the canonical GPU and model names in `summary` (gpu, model, quantization when the engine
/// reported none) and the reported ones in gpu_reported / model_reported; marks a run on GPUs the
/// catalog does not know as unverified_hardware.
void apply_canonical_names(store::RunSummary& summary, const RunResult& run, const CatalogMatch& match,
                           const calc::Catalog& catalog);

/// A listing's query with its filters in the canonical names, so a link written with a reported
/// name still finds the runs: `model=Qwen3.5-4B-AWQ-4bit` → `model=Qwen3.5-4B&quantization=AWQ 4-bit`
/// (the quantisation only when none is asked for); `gpu=NVIDIA H100 80GB HBM3` → `gpu=H100 SXM 80GB`
/// (a "2× " prefix kept); `quantization=awq` → `AWQ 4-bit`. Names the catalog does not know, and
/// every other parameter, are kept as they are.
QueryParams canonical_filter_query(const QueryParams& query, const calc::Catalog& catalog);

}  // namespace sm::site
