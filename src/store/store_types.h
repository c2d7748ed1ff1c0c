#pragma once
// The questions a ResultStore answers and the shapes of its answers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/run_summary.h"

namespace sm::store {

/// Which runs a listing includes. Empty fields do not filter; the others match exactly (the
/// values /api/v1/hardware and /api/v1/models list).
struct RunFilter {
  std::string gpu;           ///< RunSummary::gpu
  std::string model;         ///< RunSummary::model
  std::string engine;        ///< RunSummary::engine
  std::string quantization;  ///< RunSummary::quantization
  std::string kind;          ///< "measured", "simulated", "predicted"
  bool known_hardware_only = false;  ///< leave out runs on unknown hardware (kUnknownHardwareGroup): rankings
  bool with_tokens_per_joule_only = false;  ///< leave out runs without best_tokens_per_joule: the efficiency ranking
  bool unflagged_only = false;  ///< leave out flagged runs: implausible, synthetic model, unverified hardware (default rankings)
  bool include_hidden = false;  ///< list hidden runs too (moderation only; every page and API listing leaves them out)
  std::string profile;          ///< only runs of this profile (RunSummary::profile; "" = any): a ranking's kCurrentStandardProfile
  std::string other_than_profile;  ///< leave out runs of this profile ("" = none): the leaderboard's Other runs
  // Users at a speed (docs/site.md, "Users at a speed"): every listing reads each run's users at
  // this floor and context (RunSummary::users_at); min_users > 0 keeps only runs serving at least
  // that many there. The floor is one of kDefaultUserFloorsTokS (the floors the store keeps).
  double users_floor_tok_s = 20;
  int64_t users_context = 32 * 1024;
  int64_t min_users = 0;
};

/// What `serve run list` narrows to (every field "" = any): a moderator's view, hidden runs too.
struct ModerationFilter {
  std::string token_id;  ///< runs uploaded with this token (RunSummary::token_id)
  std::string kind;      ///< "measured", "simulated", "predicted"
  /// "implausible", "synthetic_model", "hidden", "unknown_hardware" (on kUnknownHardwareGroup),
  /// "unverified_hardware" (GPUs the catalog does not know), or "none": shown, unflagged, on known hardware.
  std::string flag;
};
/// The ModerationFilter::flag values.
inline constexpr const char* kModerationFlags[] = {"implausible",      "synthetic_model",     "hidden",
                                                   "unknown_hardware", "unverified_hardware", "none"};

/// The calculator setup a run matched (RunSummary::calc_*): which measured runs are evidence for
/// a prediction of this GPU × count, model and engine.
struct SetupKey {
  std::string gpu;        ///< catalog GPU id
  int64_t gpu_count = 1;
  std::string model;      ///< catalog model id
  std::string engine;     ///< catalog engine id
};

/// Orders of a listing. The metric orders put the highest first and runs without the number last.
enum class RunOrder {
  Newest,        ///< uploaded_at, newest first
  SingleStream,  ///< single_stream_tok_s
  BestTotal,     ///< best_total_tok_s
  Prefill32K,    ///< prefill_32k_tok_s
  TokensPerJoule,  ///< best_tokens_per_joule (the server's GPUs only; see RunSummary)
};

/// Where a keyset page starts: the sort key of the row next to it (store/page_cursor.h makes and
/// reads its text form, the `cursor` parameter of listings).
struct PageCursor {
  bool before = false;        ///< false: the rows after this key (next page); true: the rows before it (previous page)
  RunOrder order = RunOrder::Newest;  ///< the order the key belongs to
  int64_t position = 0;       ///< rows ahead of the page it opens (for ranks and "51–100 of N"; approximate once
                              ///< runs are added ahead of it)
  std::optional<double> key;  ///< the order's metric of that row (none: the row has no figure; unused by Newest)
  std::string uploaded_at;    ///< that row's upload time
  std::string run_id;         ///< that row's id (the last tie-breaker: unique)
};

/// A page of a listing: a keyset cursor (fast at any depth), or an offset (old links).
struct PageRequest {
  int64_t limit = 50;  ///< rows per page (1..kMaxPageLimit)
  int64_t offset = 0;  ///< rows skipped (ignored with a cursor)
  std::optional<PageCursor> cursor;  ///< where the page starts; must be of the listing's order
};

constexpr int64_t kMaxPageLimit = 500;

/// One page of runs and how many match in all.
struct RunPage {
  std::vector<RunSummary> runs;
  int64_t total = 0;     ///< runs matching the filter (all pages)
  int64_t position = 0;  ///< rows ahead of this page's first (the offset, or the cursor's position)
  std::optional<PageCursor> next;      ///< the next page's cursor; none on the last page
  std::optional<PageCursor> previous;  ///< the previous page's cursor; none on the first page
};

/// What a shared rate limit answered (ResultStore::take_rate_token).
struct RateDecision {
  bool allowed = true;
  int64_t retry_after_s = 0;  ///< when refused: whole seconds until the next request is allowed
};

/// One group of the Hardware (per GPU) or Models (per model) listing.
struct GroupSummary {
  std::string name;                           ///< the GPU or the model
  int64_t runs = 0;                           ///< runs in the group
  int64_t distinct_other = 0;                 ///< distinct models (per GPU) or GPUs (per model)
  // The best figures are of the runs a ranking compares: the current standard profile's, not flagged.
  std::optional<double> best_single_stream_tok_s;
  std::optional<double> best_total_tok_s;
  std::optional<double> best_prefill_32k_tok_s;
  std::string last_uploaded_at;               ///< newest upload of the group
  std::optional<double> best_tokens_per_joule;  ///< highest RunSummary::best_tokens_per_joule of the group
};

/// Distinct values of the filter columns, for the filter menus.
struct FilterValues {
  std::vector<std::string> gpus;
  std::vector<std::string> models;
  std::vector<std::string> engines;
  std::vector<std::string> quantizations;
  std::vector<std::string> kinds;
};

/// An upload token as listed (the secret itself is never stored).
struct TokenInfo {
  std::string token_id;    ///< public id, e.g. "tk_3f9a2c1e5b7d"
  std::string name;        ///< label given at creation
  std::string created_at;  ///< ISO-8601 UTC
  std::string revoked_at;  ///< ISO-8601 UTC; empty while valid
  int64_t uploads = 0;     ///< runs stored with this token
};

/// What storing a run did.
enum class PutStatus {
  Created,   ///< the run is new and now stored
  Existing,  ///< a run with this id and the same content was already stored (idempotent retry)
  Conflict,  ///< a run with this id but different content is stored; nothing changed
  Duplicate, ///< the same measurements are stored under another run id (find it with find_run_by_measurements)
};

/// A run to store: its JSON text as uploaded plus the summary worked out from it.
struct RunRecord {
  RunSummary summary;          ///< uploaded_at and token_id filled in by the caller
  std::string result_json;     ///< the result, canonical JSON text (what GET returns)
  std::string content_sha256;  ///< hex SHA-256 of result_json, to tell a retry from a conflict
  std::string measurements_sha256;  ///< hex SHA-256 of the measurements (site/upload_checks.h); "" = not
                                    ///< checked for duplicates. Unique among stored runs.
};

/// A stored run as the site checks it again: its summary and stored JSON text.
struct StoredRun {
  RunSummary summary;
  std::string result_json;
};

}  // namespace sm::store
