#pragma once
// Which fixed profile a run followed (RunSettings::profile, "name/version"), and whether that is
// the one rankings compare: a leaderboard ranks like with like, so only runs of the current
// standard profile are ranked (docs/METRICS.md, "Profiles"; docs/site.md, "Ranked like with like").
// Header-only: the site, the store and the upload client all ask it.
#include <string_view>

namespace sm {

/// The standard profile rankings compare now. A new version of the standard (other rows or cells)
/// is a new value here; runs of the older version are then listed apart, never ranked with it.
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

}  // namespace sm
