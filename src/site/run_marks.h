#pragma once
// How pages mark what a run is: its kind (measured, predicted, simulated: each its own badge
// colour), its flags (implausible, synthetic model: out of default rankings), and the tabs that
// keep the kinds apart on the leaderboard, hardware and model pages.
#include <string>
#include <string_view>
#include <vector>

#include "site/listing_query.h"
#include "store/run_summary.h"

namespace sm::site {

/// `<span class="badge measured">Measured</span>` (predicted, simulated alike); "" for no kind.
std::string kind_badge(std::string_view kind);

/// The badges of a run: its kind, then "Implausible" (the reason as its title) and "Synthetic
/// model" when flagged, then its retrieval check (retrieval_badge), then its profile when that is not the current standard ("Own matrix",
/// "quick/1", ...: not ranked).
std::string run_badges(const store::RunSummary& run);

/// The retrieval check beside a run (RunSummary::retrieval): "Read back" when every checked
/// context was, "Not read back: 32K, 128K" naming the failed contexts (out of the rankings
/// there), "Retrieval check did not run" when a check erred; "" for no check or a synthetic model.
std::string retrieval_badge(const store::RunSummary& run);

/// The contexts a run did not read back, as pages name them: "32K, 128K".
std::string failed_contexts_text(const store::RunSummary& run);

/// A run's profile in words: "standard/1", "quick/1", or "Own matrix" for none (result/profile.h).
std::string profile_text(std::string_view profile);

/// The leaderboard's views, under its kind tabs: "Ranked: standard/1" (the current standard
/// profile's runs) and "Other runs" (`profile=other`), keeping the other filters of `q`.
std::string profile_tabs(std::string_view action, const ListingQuery& q);

/// Under the ranking: `others` runs of another profile or none are not ranked, with a link to the
/// Other runs view; "" for none.
std::string other_runs_note(std::string_view action, const ListingQuery& q, int64_t others);

/// Tabs Measured · Predicted · Simulated · All over a listing at `action`, keeping the other
/// filters of `q`; the tab of `q`'s kind is marked current.
std::string kind_tabs(std::string_view action, const ListingQuery& q);

/// A note saying that `flagged` runs are not ranked, with a link that shows them; "" for none.
std::string flagged_note(std::string_view action, const ListingQuery& q, int64_t flagged);

/// A warning when `runs` are of more than one kind, or mix synthetic-model runs with others
/// ("" when they are alike): comparing a prediction with a measurement is not comparing two machines.
std::string mixed_kinds_warning(const std::vector<store::RunSummary>& runs);

}  // namespace sm::site
