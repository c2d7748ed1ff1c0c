#pragma once
// The results site's data files (data/site/*.json), compiled into the binary by
// src/site/embed_site_data.cmake: the OpenAPI description and the result JSON schema.
#include <optional>
#include <span>
#include <string_view>

namespace sm::site {

/// One embedded file.
struct SiteDataFile {
  std::string_view name;     ///< file name under data/site/, e.g. "openapi.json"
  std::string_view content;  ///< the file's bytes
};

/// Every embedded file (definition generated at build time).
std::span<const SiteDataFile> site_data_files();

/// The content of the embedded file `name`; std::nullopt when there is none.
std::optional<std::string_view> site_data_file(std::string_view name);

}  // namespace sm::site
