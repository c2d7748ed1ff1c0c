#pragma once
// The indexed columns of a stored run: who, what, where, the three headline numbers of the
// leaderboard, and its efficiency (best tokens per joule) and throttling at run level. Worked out once from the RunResult when it is stored; the full result JSON is
// stored beside them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "report/report_model.h"
#include "result/profile.h"
#include "result/result.h"

namespace sm::store {

/// What the run list, the leaderboard and the filters show of one run.
struct RunSummary {
  std::string run_id;            ///< the result's run_id (primary key)
  std::string kind;              ///< "measured", "simulated" or "predicted"
  std::string gpu;               ///< hardware as the report titles it: "RTX 3090 24GB", "2× H100 80GB", a CPU;
                                 ///< on the site the catalog's name when it knows the GPU (site/canonical_names.h)
  std::string model;             ///< model as the report titles it: "Qwen3.5-4B-AWQ-4bit"; on the site the
                                 ///< model without its quantisation tail ("Qwen3.5-4B")
  std::string gpu_reported;      ///< the site: `gpu` as the run reported it ("NVIDIA H100 80GB HBM3" → "H100 80GB HBM3")
  std::string model_reported;    ///< the site: `model` as the run reported it
  std::string engine;            ///< engine kind: "vllm", "llamacpp", ...
  std::string engine_version;    ///< e.g. "0.32.0"; empty when unknown
  std::string quantization;      ///< e.g. "AWQ 4-bit"; empty when unknown
  std::string submitted_by;      ///< the result's submitted_by label
  std::string started_at;        ///< ISO-8601 UTC, from the result
  std::string uploaded_at;       ///< ISO-8601 UTC, set by the store
  std::string token_id;          ///< id of the upload token; empty for runs stored without one
  // The three headline figures leave out contexts whose retrieval check failed (RetrievalCheck).
  std::optional<double> single_stream_tok_s;  ///< total tok/s of the valid cell at concurrency 1, smallest context
  std::optional<int64_t> single_stream_context;  ///< that cell's context
  std::optional<double> best_total_tok_s;     ///< highest total tok/s of any valid decode cell
  std::optional<int64_t> best_total_context;     ///< that cell's context
  std::optional<int64_t> best_total_concurrency; ///< that cell's concurrency
  std::optional<double> prefill_32k_tok_s;    ///< prompt tok/s of the valid 32K (32,768-token) prefill row
  /// The single-stream and best-total figures are projections to the full window (a settled
  /// adaptive window, --precision): the listings mark them "~" as the report does.
  bool single_stream_projected = false;
  bool best_total_projected = false;
  int64_t valid_cells = 0;       ///< decode cells with status valid
  int64_t decode_cells = 0;      ///< decode cells in the result
  // Telemetry (store/run_telemetry.h; docs/METRICS.md, "Telemetry").
  std::optional<double> best_tokens_per_joule;  ///< highest tokens per joule of a valid decode cell; only
                                                ///< when the readings are the server's GPUs (gpu_telemetry "server")
  std::optional<int64_t> best_tokens_per_joule_context;      ///< that cell's context
  std::optional<int64_t> best_tokens_per_joule_concurrency;  ///< that cell's concurrency
  std::string gpu_telemetry;     ///< whose GPUs were read: "server", "client_side_only", "" (none)
  std::string throttle_worst;    ///< worst verdict of the valid cells and prefill rows of the server's
                                 ///< GPUs: "ok", "power_capped", ...; "" when none (or not the server's)
  std::optional<int64_t> throttled_cells;  ///< of those, how many are not "ok"; nullopt when no verdict
  // What the site works out at upload (site/catalog_match.h, site/upload_checks.h); empty here.
  std::string calc_gpu;          ///< the calculator catalog's GPU id of the run's hardware; "" when none matches
  int64_t calc_gpu_count = 0;    ///< how many of them (0 when calc_gpu is "")
  std::string calc_model;        ///< the catalog's model id; "" when none matches
  std::string calc_engine;       ///< the catalog's engine id; "" when none matches
  std::string implausible;       ///< why the run is flagged implausible (above the roofline); "" when it is not
  bool synthetic_model = false;  ///< measured on a synthetic model (speedmatrix synth-model's GGUF)
  /// On GPUs the catalog does not know: checked against a generous class bound only, so out of
  /// the default rankings until the catalog knows them (docs/site.md, "Upload checks").
  bool unverified_hardware = false;
  std::string checked_with;      ///< fingerprint of the catalog the site's checks used ("" = never checked)
  bool hidden = false;           ///< hidden by a moderator: out of every page and listing
  std::string profile;           ///< settings.profile: "standard/1", "quick/1", ...; "" = a matrix of its own
  /// Users at the site's speed floors (kDefaultUserFloorsTokS) at each context, from the cells the
  /// rankings count (metrics/capacity.h over metrics/pareto.h's counted_decode_cells); stored in
  /// the run_capacity table with the run. Listings do not read it back (see users_at).
  std::vector<CapacityPoint> capacity;
  /// A listing's capacity column: the users at its RunFilter's floor and context; std::nullopt
  /// when the run has no figure there. users_at_basis: CapacityPoint::basis ("at_least": "≥").
  std::optional<int64_t> users_at;
  std::string users_at_basis;
  /// The long-context retrieval check's verdict for the run (retrieval_standing): "" (no check),
  /// "read" (every checked context read back), "failed" (at retrieval_failed_contexts: those
  /// contexts are out of the rankings), "error" (a check did not run, none failed),
  /// "not_applicable" (a synthetic model). Shown beside the run in every listing.
  std::string retrieval;
  std::vector<int64_t> retrieval_failed_contexts;  ///< ascending; empty unless retrieval is "failed"

  /// Out of default rankings: flagged implausible, on a synthetic model or on unverified hardware.
  bool flagged() const { return !implausible.empty() || synthetic_model || unverified_hardware; }
  /// In the default rankings: of the current standard profile (result/profile.h), on known
  /// hardware, not flagged (not_ranked_because says why not).
  bool ranked() const;
};

/// RunSummary::retrieval and retrieval_failed_contexts from a result's retrieval checks.
void retrieval_standing(const RunResult& r, RunSummary& s);

/// retrieval_failed_contexts as the retrieval_failed column holds them: "32768,131072" ("" for
/// none); core/units.h's parse_token_list reads it back.
std::string context_list_text(const std::vector<int64_t>& contexts);

/// The projected_figures column: which listed figures are projections (bits).
constexpr int64_t kProjectedSingleStream = 1;
constexpr int64_t kProjectedBestTotal = 2;
inline int64_t projected_figures(const RunSummary& s) {
  return (s.single_stream_projected ? kProjectedSingleStream : 0) | (s.best_total_projected ? kProjectedBestTotal : 0);
}

/// The `gpu` of runs whose hardware is unknown (a server on another machine, nothing declared):
/// listed under this name, kept out of the leaderboard and the per-hardware groups.
/// (The name the report gives such hardware.)
inline constexpr std::string_view kUnknownHardwareGroup = report::kUnknownHardwareName;

/// The prefill context of the leaderboard's prefill column: 32K tokens.
constexpr int64_t kLeaderboardPrefillContext = 32 * 1024;

/// The engine column of a simulated run (`speedmatrix sim` imitates vLLM, but `engine=sim` finds it).
inline constexpr std::string_view kSimulatedEngine = "sim";

/// Why a run is out of the default rankings, the first reason of: "no_profile" (a matrix of its
/// own), "quick_profile", "other_profile" (another version of the standard, or a profile this
/// build does not know), "unknown_hardware", "unverified_hardware", "implausible", "synthetic_model";
/// "" when it is ranked.
std::string_view not_ranked_because(const RunSummary& run);

/// Works out the summary of a result (uploaded_at and token_id are left empty).
RunSummary summarize_run(const RunResult& result);

}  // namespace sm::store
