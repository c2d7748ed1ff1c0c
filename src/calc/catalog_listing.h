#pragma once
// `speedmatrix calc --list`: the catalogs as terminal tables or JSON.
#include <string>

#include <nlohmann/json.hpp>

#include "calc/catalog.h"

namespace sm::calc {

/// Four aligned tables (GPUs, models, quantisations, engines) with the figures the model uses.
std::string catalog_to_text(const Catalog& catalog);

/// {"gpus": [...], "models": [...], "quants": [...], "engines": [...]} with derived figures
/// (parameters, KV bytes per token, bits per weight) next to each entry's own fields.
nlohmann::json catalog_to_json(const Catalog& catalog);

}  // namespace sm::calc
