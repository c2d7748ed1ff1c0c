#pragma once
// Whether a run's configuration is still the profile it started from: a flag that changes one of
// the profile's settings makes the run a matrix of its own (docs/METRICS.md, "Profiles").
#include <string>
#include <vector>

#include "bench/run_config.h"
#include "result/profile.h"

namespace sm {

/// The flags whose values in `config` differ from `profile`'s fixed settings ("--duration",
/// "--contexts", ...), in the order profile_fixed_flags() lists them; empty: the run is the profile.
std::vector<std::string> profile_departures(const Profile& profile, const RunConfig& config);

/// Fills in every setting of `profile` that the user did not set (`given` lists the flags set on
/// the command line), then keeps the profile in config.profile only if nothing departs from it.
/// Returns the note to show when a departure dropped it (empty otherwise).
std::string apply_profile(const Profile& profile, const std::vector<std::string>& given, RunConfig& config);

}  // namespace sm
