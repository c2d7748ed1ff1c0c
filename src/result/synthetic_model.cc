#include "result/synthetic_model.h"

#include "gguf/synth_detect.h"

namespace sm {

bool is_synthetic_engine_model(const EngineInfo& engine) {
  return engine.synthetic_model || names_synthetic_model(engine.model) || names_synthetic_model(engine.model_path);
}

}  // namespace sm
