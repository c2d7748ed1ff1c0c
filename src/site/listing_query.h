#pragma once
// The query parameters every run listing shares (API and pages): filters, order, page.
//   ?gpu=RTX%203090%2024GB&model=...&engine=vllm&quantization=...&kind=measured
//   &sort=single_stream|best_total|prefill_32k|tokens_per_joule|newest&limit=50&cursor=a1~50~...
//   &profile=standard|other (runs of the current standard profile, or every other run)
//   &users_at=10|20|50&context=32768&min_users=8 (the users-at-a-speed column's floor and context,
//   default 20 tok/s at 32K; min_users keeps the runs serving at least that many there)
// Pages are keyset pages: `cursor` (store/page_cursor.h) names where one starts, so a page deep in
// 100,000 runs costs what the first does; `offset` still works for old links.
#include <string>
#include <utility>
#include <vector>
#include <string_view>

#include "site/query_string.h"
#include "site/ui_error.h"
#include "store/store_types.h"

namespace sm::site {

struct ListingQuery {
  store::RunFilter filter;
  store::RunOrder order = store::RunOrder::Newest;
  store::PageRequest page;
  std::string kind_param;        ///< `kind` as links repeat it: "measured", ..., "all" (any kind), "" (the default)
  bool include_flagged = false;  ///< `flagged=include`: rankings keep implausible and synthetic-model runs
  std::string profile_param;     ///< `profile` as links repeat it: "standard", "other", "" (not given: any profile,
                                 ///< except on the leaderboard, whose default is "standard")
  std::string next_cursor;       ///< after note_page: the next page's `cursor`; empty on the last page
  std::string previous_cursor;   ///< after note_page: the previous page's `cursor`; empty on the first page
};

/// The users-at-a-speed column's defaults (store::RunFilter) and the parameters' bounds.
inline constexpr double kDefaultUsersFloorTokS = 20;
inline constexpr int64_t kDefaultUsersContext = 32 * 1024;
inline constexpr int64_t kMaxListingContext = int64_t{1} << 24;
inline constexpr int64_t kMaxListingUsers = int64_t{1} << 20;

/// The kinds of run, in the order their tabs are shown.
inline constexpr std::string_view kKinds[] = {"measured", "predicted", "simulated"};

/// Reads the listing parameters; `default_order` applies when `sort` is absent, `default_kind`
/// when `kind` is ("all" or an empty `kind=` lists every kind). Errors name the parameter (a
/// limit that is not a number, an unknown sort or kind): the English message for the API, and
/// its `listing.*` catalog key with the parameter, the bad value and what is allowed for pages.
UiResult<ListingQuery> parse_listing_query(const QueryParams& query, store::RunOrder default_order,
                                         int64_t default_limit = 50, std::string_view default_kind = "");

/// Takes in what the store said of the page it listed: where it starts (page.offset, so ranks
/// count from there) and the cursors of the pages either side.
void note_page(ListingQuery& query, const store::RunPage& page);

/// Makes a listing a ranking (the leaderboard, page and API): runs on unknown hardware are left
/// out, and so, when ranked by tokens per joule, are runs without that figure of the server's
/// GPUs (no GPU telemetry, or readings of the client's machine only): listed, never ranked.
/// Flagged runs (implausible, synthetic model) are left out unless `flagged=include`.
void make_ranking(ListingQuery& query);

/// The `profile` values of a listing: the current standard profile's runs, or every other run.
inline constexpr std::string_view kStandardView = "standard";
inline constexpr std::string_view kOtherView = "other";

/// Reads the leaderboard's parameters (page and API; docs/site.md, "Ranked like with like"). By
/// default it ranks measured runs of the current standard profile (kCurrentStandardProfile) by
/// single-stream decode, leaving out what make_ranking leaves out; `profile=other` is its Other
/// runs: every run of another profile or of none (a matrix of its own, quick, an older standard)
/// on known hardware, flagged ones too, newest first by default, listed and never ranked.
UiResult<ListingQuery> parse_leaderboard_query(const QueryParams& query);

/// True for the leaderboard's Other runs (`profile=other`): listed, never ranked.
inline bool other_runs_view(const ListingQuery& query) { return query.profile_param == kOtherView; }

/// The filter parameters of a listing as links repeat them (kind as kind_param, flagged).
std::vector<std::pair<std::string, std::string>> listing_params(const ListingQuery& query);

/// The `sort` value of an order: "newest", "single_stream", "best_total", "prefill_32k",
/// "tokens_per_joule".
std::string_view order_name(store::RunOrder order);

}  // namespace sm::site
