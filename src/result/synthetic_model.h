#pragma once
// Whether a run's model is one of `speedmatrix synth-model`'s (random weights, for speed tests
// only): the run says so (engine.synthetic_model, from the GGUF's own key where the file was
// readable; gguf/synth_detect.h), or its model id or path names one. The results site marks such
// runs (site/upload_checks), the output checks note their loops instead of warning, and the
// retrieval check does not ask them anything (docs/METRICS.md).
#include "result/result.h"

namespace sm {

/// engine.synthetic_model, or "synth" as a word of the model id or path (names_synthetic_model).
bool is_synthetic_engine_model(const EngineInfo& engine);

}  // namespace sm
