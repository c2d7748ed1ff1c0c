// What the upload client says of a run's standing, from the site's answer (upload/ranking_note.h):
// every reason the site gives has its own words, and a site that says nothing gets none.
#include <gtest/gtest.h>

#include "upload/ranking_note.h"

namespace sm::upload {
namespace {

UploadOutcome answered(bool ranked, const std::string& why = "", const std::string& profile = "standard/1") {
  UploadOutcome o;
  o.ranked = ranked;
  o.profile = profile;
  o.standard_profile = "standard/1";
  o.not_ranked_because = why;
  return o;
}

TEST(RankingNote, EachReasonHasItsOwnWords) {
  EXPECT_EQ(ranking_note(answered(true)), "ranked on the leaderboard (standard/1)");
  EXPECT_EQ(ranking_note(answered(false, "no_profile", "")),
            "listed under other runs, not ranked: no standard profile (run --profile standard to be ranked)");
  EXPECT_EQ(ranking_note(answered(false, "quick_profile", "quick/1")),
            "listed under other runs, not ranked: quick/1 runs are never ranked");
  EXPECT_EQ(ranking_note(answered(false, "other_profile", "standard/0")),
            "listed under other runs, not ranked: standard/0 is not the site's standard profile standard/1 (run "
            "--profile standard to be ranked)");
  EXPECT_EQ(ranking_note(answered(false, "unknown_hardware")),
            "not ranked: unknown hardware (declare the server's with run --server-hardware FILE, or --gpu NAME)");
  UploadOutcome implausible = answered(false, "implausible");
  implausible.implausible = "decode 9,000 tok/s above twice the roofline";
  EXPECT_EQ(ranking_note(implausible), "not ranked: flagged implausible (decode 9,000 tok/s above twice the roofline)");
  EXPECT_EQ(ranking_note(answered(false, "synthetic_model")), "not ranked: measured on a synthetic model");
  EXPECT_EQ(ranking_note(answered(false, "a_reason_of_a_newer_site")), "not ranked (a_reason_of_a_newer_site)");
}

TEST(RankingNote, ASiteThatDoesNotSayGetsNoLine) {
  UploadOutcome older;  // a site older than profiles: no `ranked` with a standard profile
  older.run_id = "r";
  EXPECT_EQ(ranking_note(older), "");
}

}  // namespace
}  // namespace sm::upload
