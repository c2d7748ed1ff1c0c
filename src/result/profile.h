#pragma once
// Fixed profiles: every setting that changes a number pinned, so two runs of the same profile on
// any two machines compare cell for cell (docs/METRICS.md, "Profiles"). A profile is never
// edited: changing one is a new version ("standard/2"), and the site ranks only the current
// standard.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result/plan.h"

namespace sm {

/// The profile the results site ranks (its leaderboard's default view).
inline constexpr std::string_view kCurrentStandardProfile = "standard/1";

struct Profile {
  std::string_view id;  ///< name/version, as recorded in settings.profile: "standard/1"
  std::string_view name;  ///< what --profile takes: "standard"
  bool ranked = false;  ///< the site ranks its runs (quick: never)
  MatrixSettings matrix;  ///< cells, window, max output (fixed-duration windows)
  double temperature = 0;  ///< sampling: greedy
  std::string_view api = "completions";
  std::string_view summary;  ///< one line for --help and the plan
};

/// Every profile this build knows, current versions only.
const std::vector<Profile>& profiles();

/// The profile --profile NAME (or "name/version" of a current one) names; nullopt if none.
std::optional<Profile> find_profile(std::string_view name);

/// "standard, quick": the names --profile takes, for messages.
std::string profile_names();

/// Flags that change a profile's setting (a run given one of them is no longer that profile).
/// Flags that do not change a number (--repeat, --kv-capacity, --max-model-len, timeouts, the
/// connection) keep it.
const std::vector<std::string_view>& profile_fixed_flags();

/// Whether a run of `profile_id` ("standard/1") is ranked on the site: the current standard only.
bool is_ranked_profile(std::string_view profile_id);

}  // namespace sm
