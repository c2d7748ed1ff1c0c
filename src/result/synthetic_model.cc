#include "result/synthetic_model.h"

#include <cctype>
#include <string>

namespace sm {

bool has_synth_word(std::string_view text) {
  std::string name(text);
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.find("speedmatrix synth") != std::string::npos || name.find("speedmatrix-synth") != std::string::npos)
    return true;
  for (size_t at = name.find("synth"); at != std::string::npos; at = name.find("synth", at + 1)) {
    const bool starts = at == 0 || !std::isalpha(static_cast<unsigned char>(name[at - 1]));
    const size_t end = at + 5;
    const bool ends = end == name.size() || !std::isalpha(static_cast<unsigned char>(name[end]));
    if (starts && ends) return true;
  }
  return false;
}

bool is_synthetic_engine_model(const EngineInfo& engine) {
  return has_synth_word(engine.model) || has_synth_word(engine.model_path);
}

}  // namespace sm
