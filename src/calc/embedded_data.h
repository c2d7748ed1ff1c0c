#pragma once
// The calculator's data files (data/*.json), compiled into the binary by cmake/embed_data.cmake
// so that `speedmatrix calc` never depends on the working directory.
#include <span>
#include <string_view>

namespace sm::calc {

/// One embedded file.
struct EmbeddedFile {
  std::string_view name;     ///< file name under data/, e.g. "gpus.json"
  std::string_view content;  ///< the file's bytes
};

/// Every embedded data file (definition generated at build time).
std::span<const EmbeddedFile> embedded_data_files();

}  // namespace sm::calc
