#pragma once
// A model the catalog lacks, from its Hugging Face config.json (calc/sim --model-config): the
// decoder's shape read from the config's own fields and checked like any catalog entry
// (docs/calculator.md, "A model from its config.json"). Dense and GQA models (Llama, Qwen2/3,
// Mistral), MoE (Mixtral, Qwen-MoE, DeepSeek with shared experts and leading dense layers), MLA
// (DeepSeek-V2/V3) and per-layer sliding windows (layer_types: Gemma, gpt-oss). Linear-attention
// layers (Qwen3-Next, Qwen3.5) are refused: their shape needs a --model-file entry.
#include <string>

#include <nlohmann/json.hpp>

#include "calc/catalog.h"
#include "core/error.h"

namespace sm::calc {

/// The catalog entry (data/models.json layout) of `config` under `id`; `origin` (the file) goes
/// into its source and its errors. A multimodal config's "text_config" is read for the decoder.
Result<nlohmann::json> model_entry_from_hf_config(const nlohmann::json& config, const std::string& id,
                                                  const std::string& origin);

/// Reads config.json at `path`, adds its model to `catalog` and returns its id: the config's
/// `_name_or_path` when it names one, else the folder holding the file ("Qwen3-8B/config.json" ->
/// "Qwen3-8B"), else the file's name.
Result<std::string> add_hf_config(Catalog& catalog, const std::string& path);

}  // namespace sm::calc
