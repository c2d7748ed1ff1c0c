#pragma once
// What `upload` and `run --upload` say after a successful upload about the run's place on the
// site: ranked, or listed apart and why (docs/site.md, "Ranked like with like"). The site decides
// (it knows its current standard profile, the hardware and its flags); this only words its answer.
#include <string>

#include "upload/upload_client.h"

namespace sm::upload {

/// One line: "ranked on the leaderboard (standard/1)", "listed under other runs, not ranked: no
/// standard profile (run --profile standard to be ranked)", "listed under other runs, not ranked:
/// quick/1 runs are never ranked", "not ranked: unknown hardware (...)", ...; "" when the site did
/// not say (a site older than profiles).
std::string ranking_note(const UploadOutcome& outcome);

}  // namespace sm::upload
