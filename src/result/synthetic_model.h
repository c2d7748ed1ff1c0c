#pragma once
// Whether a model is one of `speedmatrix synth-model`'s (random weights, for speed tests only):
// its GGUF's general.name is "speedmatrix synth ...", and the files it writes carry a "synth"
// word. The results site marks such runs (site/upload_checks), and the retrieval check does not
// ask them anything (docs/METRICS.md, "Long-context retrieval check").
#include <string_view>

#include "result/result.h"

namespace sm {

/// True when `name` says "speedmatrix synth" or has "synth" as a word of its own ("synth-tiny",
/// "x_synth.gguf"), not inside another word ("Synthia"). Case-insensitive.
bool has_synth_word(std::string_view name);

/// True when the engine's model id or model path names a synthetic model (has_synth_word).
bool is_synthetic_engine_model(const EngineInfo& engine);

}  // namespace sm
