#include "bench/profile_check.h"

#include <algorithm>
#include <fmt/format.h>

namespace sm {

namespace {
bool has(const std::vector<std::string>& given, std::string_view flag) {
  return std::find(given.begin(), given.end(), flag) != given.end();
}
}  // namespace

std::vector<std::string> profile_departures(const Profile& profile, const RunConfig& c) {
  const MatrixSettings& p = profile.matrix;
  const MatrixSettings& m = c.matrix;
  std::vector<std::string> out;
  if (sorted_unique(m.contexts) != sorted_unique(p.contexts)) out.emplace_back("--contexts");
  if (sorted_unique(m.concurrency) != sorted_unique(p.concurrency)) out.emplace_back("--concurrency");
  if (sorted_unique(m.prefill_contexts) != sorted_unique(p.prefill_contexts)) out.emplace_back("--prefill-contexts");
  if (m.duration_s != p.duration_s) out.emplace_back("--duration");
  if (m.max_output_tokens != p.max_output_tokens) out.emplace_back("--max-output");
  if (m.precision > 0) out.emplace_back("--precision");
  if (m.requests_per_cell > 0) out.emplace_back("--requests");
  if (c.temperature != profile.temperature) out.emplace_back("--temperature");
  if ((c.target.api == ApiKind::Chat ? "chat" : "completions") != profile.api) out.emplace_back("--api");
  if (c.prompts.name != "random") out.emplace_back(c.prompts.name == "dataset" ? "--dataset" : "--prompts");
  if (c.target.natural_eos) out.emplace_back("--natural-eos");
  return out;
}

std::string apply_profile(const Profile& profile, const std::vector<std::string>& given, RunConfig& c) {
  const MatrixSettings& p = profile.matrix;
  if (!has(given, "--contexts")) c.matrix.contexts = p.contexts;
  if (!has(given, "--concurrency")) c.matrix.concurrency = p.concurrency;
  if (!has(given, "--prefill-contexts")) c.matrix.prefill_contexts = p.prefill_contexts;
  if (!has(given, "--duration")) c.matrix.duration_s = p.duration_s;
  if (!has(given, "--max-output")) c.matrix.max_output_tokens = p.max_output_tokens;
  // The profile's lists are what the user asked for: not fitted to the server, even when a
  // departure drops the profile (fit_matrix still drops what cannot fit then).
  c.contexts_given = true;
  c.fit_concurrency = false;
  c.fit_max_output = false;
  const auto departures = profile_departures(profile, c);
  if (departures.empty()) {
    c.profile = std::string(profile.id);
    return {};
  }
  c.profile.clear();
  std::string flags;
  for (const auto& f : departures) flags += (flags.empty() ? "" : ", ") + f;
  return fmt::format("{} {} a setting the {} profile fixes: this run follows no profile (its matrix is its own and "
                     "is not ranked against {} runs)",
                     flags, departures.size() == 1 ? "changes" : "change", profile.name, profile.id);
}

}  // namespace sm
