#include "site/site_data.h"

namespace sm::site {

std::optional<std::string_view> site_data_file(std::string_view name) {
  for (const SiteDataFile& f : site_data_files())
    if (f.name == name) return f.content;
  return std::nullopt;
}

}  // namespace sm::site
