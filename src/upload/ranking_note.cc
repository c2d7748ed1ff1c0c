#include "upload/ranking_note.h"

#include <fmt/format.h>

namespace sm::upload {

std::string ranking_note(const UploadOutcome& o) {
  if (!o.ranked) return "";
  if (*o.ranked) return fmt::format("ranked on the leaderboard ({})", o.standard_profile);
  const std::string& why = o.not_ranked_because;
  if (why == "no_profile")
    return "listed under other runs, not ranked: no standard profile (run --profile standard to be ranked)";
  if (why == "quick_profile") return fmt::format("listed under other runs, not ranked: {} runs are never ranked", o.profile);
  if (why == "other_profile")
    return fmt::format("listed under other runs, not ranked: {} is not the site's standard profile {} (run --profile "
                       "standard to be ranked)",
                       o.profile, o.standard_profile);
  if (why == "unknown_hardware")
    return "not ranked: unknown hardware (declare the server's with run --server-hardware FILE, or --gpu NAME)";
  if (why == "implausible") return fmt::format("not ranked: flagged implausible ({})", o.implausible);
  if (why == "synthetic_model") return "not ranked: measured on a synthetic model";
  return why.empty() ? "not ranked" : fmt::format("not ranked ({})", why);
}

}  // namespace sm::upload
