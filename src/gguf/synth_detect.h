#pragma once
// Whether a served model is speedmatrix's own synthetic GGUF (speedmatrix synth-model: random
// weights, so it loops by construction and says nothing about quality): from the file's metadata
// where it can be read here, else from its name. The run records it (engine.synthetic_model), the
// output checks then note a loop instead of warning, and the site keeps such runs out of rankings.
#include <string>
#include <string_view>

namespace sm {

/// "synth" as a word of its own in a model's name or path ("synth-tiny", "x_synth.gguf",
/// "speedmatrix synth tiny f16"), not inside another word ("Synthia").
bool names_synthetic_model(std::string_view name);

/// The GGUF at `path` carries synth-model's own key (speedmatrix.synth.shape). False when the
/// file cannot be read here (a remote server's path, a repository id, not a GGUF).
bool gguf_is_synthetic(const std::string& path);

/// Either: the served model's name or path names it, or its file says so.
bool is_synthetic_model(std::string_view model, const std::string& model_path);

}  // namespace sm
