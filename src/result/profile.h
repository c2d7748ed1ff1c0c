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

/// The standard profile rankings compare now (the results site's leaderboard). A new version of
/// the standard is a new value here; runs of the older version are then listed apart, never
/// ranked with it (docs/site.md, "Ranked like with like").
inline constexpr std::string_view kCurrentStandardProfile = "standard/1";

/// The name of the quick profile: a short look at a server, never ranked (any version).
inline constexpr std::string_view kQuickProfileName = "quick";

/// Where a run stands with rankings, by its profile alone.
enum class ProfileStanding {
  CurrentStandard,  ///< kCurrentStandardProfile: ranked
  OwnMatrix,        ///< no profile: a matrix of the user's own (defaults or flags)
  Quick,            ///< quick/N: never ranked
  OtherProfile,     ///< any other: an older (or newer) standard version, or a profile this build does not know
};

/// The profile's name without its version: "standard/1" -> "standard"; "" -> "".
constexpr std::string_view profile_name(std::string_view profile) {
  return profile.substr(0, profile.find('/'));
}

constexpr ProfileStanding profile_standing(std::string_view profile) {
  if (profile.empty()) return ProfileStanding::OwnMatrix;
  if (profile == kCurrentStandardProfile) return ProfileStanding::CurrentStandard;
  if (profile_name(profile) == kQuickProfileName) return ProfileStanding::Quick;
  return ProfileStanding::OtherProfile;
}

/// True for runs rankings may compare (the current standard profile).
constexpr bool is_ranked_profile(std::string_view profile) {
  return profile_standing(profile) == ProfileStanding::CurrentStandard;
}

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

}  // namespace sm
