#pragma once
// What the site works out for a run beyond its summary, at upload and again when the catalog
// changes: the catalog match (calc_* columns), the canonical GPU and model names
// (canonical_names.h), the plausibility flag (upload_checks.h), the synthetic-model mark, and the
// fingerprint of the catalog that decided them. Runs stored under another fingerprint (older
// builds, a catalog that learned a GPU's name since) are checked again when the site starts, so
// a run kept out of the rankings as unverified hardware is ranked once its GPU is known.
//
//   apply_site_checks(record.summary, result, document, catalog, fingerprint);
//   auto rechecked = recheck_stored_runs(store, catalog, fingerprint);   // at start-up: how many
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "calc/catalog.h"
#include "core/error.h"
#include "result/result.h"
#include "store/result_store.h"

namespace sm::site {

/// A fingerprint of the catalog's names and figures and of the checks' version: two builds whose
/// checks would decide alike share it.
std::string checks_fingerprint(const calc::Catalog& catalog);

/// Fills the summary's site columns for `run` (its JSON `document`): calc_*, canonical gpu / model
/// / quantization with the reported names, unverified_hardware, implausible (measured runs),
/// synthetic_model, checked_with = `fingerprint`.
void apply_site_checks(store::RunSummary& summary, const RunResult& run, const nlohmann::json& document,
                       const calc::Catalog& catalog, std::string_view fingerprint);

/// Checks every stored run whose checked_with is not `fingerprint` (checks_fingerprint(catalog))
/// again and writes what changed; returns how many runs it checked. A stored text that is no
/// result this build reads keeps its columns and is marked checked.
Result<int64_t> recheck_stored_runs(store::ResultStore& store, const calc::Catalog& catalog,
                                    std::string_view fingerprint);

}  // namespace sm::site
