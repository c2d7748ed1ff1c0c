#include "cli/suggest.h"

#include <algorithm>

namespace sm::cli {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: insertions, deletions, substitutions and swaps of neighbours.
  const size_t w = b.size() + 1;
  std::vector<size_t> d((a.size() + 1) * w);
  for (size_t i = 0; i <= a.size(); ++i) d[i * w] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t best = std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1, d[(i - 1) * w + j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) best = std::min(best, d[(i - 2) * w + j - 2] + 1);
      d[i * w + j] = best;
    }
  return d[a.size() * w + b.size()];
}

std::optional<std::string> closest_name(std::string_view given, const std::vector<std::string>& known) {
  if (given.empty()) return std::nullopt;
  const size_t allowed = std::clamp<size_t>(given.size() / 3, 1, 3);
  std::optional<std::string> best;
  size_t best_distance = allowed + 1;
  for (const std::string& name : known) {
    size_t d = edit_distance(given, name);
    if (name.size() > given.size() && std::string_view(name).starts_with(given)) d = std::min<size_t>(d, 1);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

}  // namespace sm::cli
