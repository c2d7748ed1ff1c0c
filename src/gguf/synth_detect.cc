#include "gguf/synth_detect.h"

#include <cctype>
#include <filesystem>
#include <system_error>

#include "gguf/gguf_reader.h"

namespace sm {

bool names_synthetic_model(std::string_view text) {
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

bool gguf_is_synthetic(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec)) return false;
  auto file = gguf::read_gguf(path);
  return file && file->find("speedmatrix.synth.shape") != nullptr;
}

bool is_synthetic_model(std::string_view model, const std::string& model_path) {
  return names_synthetic_model(model) || names_synthetic_model(model_path) || gguf_is_synthetic(model_path);
}

}  // namespace sm
