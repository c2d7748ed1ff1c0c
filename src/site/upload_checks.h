#pragma once
// What the site checks of an upload after the schemas (docs/site.md, "Upload checks"):
//
//  - refused (400, the message names the field): negative or non-finite rates and times;
//    a decode cell whose total_tok_s disagrees with output_tokens / measured_s by more than 2%;
//    a per-request rate above the cell's total (by more than the gaps between one stream's
//    requests explain, TTFT × rate / max output, and kPerRequestAllowance); a start or
//    finish before 2023 or in the future (beyond kClockSkewMs); a prefill row whose TTFT × prompt
//    tok/s is not its prompt tokens (within 2%): a prefill faster than its context allows;
//    tokens_per_joule that is not the window's tokens ÷ gpu_energy_j (2%), or without an energy;
//    gpu_energy_j more than 50% from gpu_power_w × the window (windows of 1 s or more); a valid
//    cell or row with no tokens, a 0 s window, or a sustained window shorter than 0.9 × the run's
//    duration_s (adaptive: min_window_s); two cells at one context × concurrency; a finish
//    before the start; a measured run with nothing valid in it; a run labelled measured without
//    a tool version, a valid cell without requests_started, or a prediction's marks.
//    (More than 1,000 decode cells: upload-rules.json.)
//  - flagged, accepted (implausible_reason): decode throughput above twice the calculator's
//    roofline for the run's GPUs and model (roofline_total_tok_s), or prompt throughput above
//    twice its compute roofline (roofline_prefill_tok_s); GPUs the catalog does not know against
//    the fastest of their class (class_bound_gpu), and the run kept out of default rankings as
//    unverified hardware (site/canonical_names.h);
//  - marked (is_synthetic_model): a run on speedmatrix's own synthetic GGUF;
//  - recognised (measurements_sha256): the same measurements under another run id.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "calc/catalog.h"
#include "calc/setup.h"
#include "core/error.h"
#include "result/result.h"
#include "site/catalog_match.h"

namespace sm::site {

constexpr double kRateTolerance = 0.02;          ///< total vs output/measured, TTFT × rate vs prompt tokens
constexpr double kProjectionTolerance = 0.25;    ///< an adaptive window's projection vs its own rate (the drift of a short window)
constexpr double kPerRequestAllowance = 0.10;    ///< per-request may exceed total by this beyond the restarts' gaps
constexpr int64_t kClockSkewMs = 3600 * 1000;    ///< a start this far ahead of the site's clock is still accepted
constexpr int64_t kEarliestRunUnixMs = 1672531200000;  ///< 2023-01-01T00:00:00Z
constexpr double kImplausibleFactor = 2.0;       ///< flagged above this many times the roofline
/// Flagged when a window's mean board power is above this many times the sum of the sampled GPUs'
/// enforced power limits: a mean over a window cannot sit above the limit the board enforces
/// (transients over it are averaged away); 1.25 leaves room for a limit changed mid-run.
constexpr double kPowerLimitFactor = 1.25;
constexpr double kEnergyTolerance = 0.5;         ///< a window's gpu_energy_j vs gpu_power_w × its length
constexpr double kEnergyCheckMinWindowS = 1.0;   ///< ... checked only on windows at least this long (sampling)
constexpr double kWindowAllowance = 0.9;         ///< a valid window may be this share of the settings' window

/// Milliseconds since the epoch of an ISO-8601 time ("2026-12-02T14:34:48Z", fractions and
/// "+hh:mm" offsets accepted); nullopt when it is not one.
std::optional<int64_t> parse_iso8601_ms(std::string_view text);

/// The refusals; the error message names the field ("$.decode[3].total_tok_s: ...").
Result<void> check_upload_numbers(const RunResult& run, int64_t now_unix_ms);

/// The calculator's roofline of a decode cell: total tok/s of `concurrency` streams at
/// `context` with every efficiency at 1, no step overhead, one read of the shared prompt's KV
/// (FP8), the GPU count's full bandwidth and compute. An upper bound no engine reaches without
/// speculative decoding.
double roofline_total_tok_s(const calc::Setup& setup, int64_t context, int64_t concurrency);

/// The calculator's roofline of a prefill row: prompt tok/s of one cold prompt of `context` tokens
/// with every efficiency at 1 (the GPU count's full compute and bandwidth), no CPU time. The
/// FLOPs of a prompt do not shrink with any trick an engine has for decode, so a measured prompt
/// above it is compute the hardware does not have.
double roofline_prefill_tok_s(const calc::Setup& setup, int64_t context);

/// The bound an unverified device is checked against: the fastest figures (bandwidth, memory and
/// every tensor rate) of the catalog's GPUs of its vendor ("NVIDIA", "AMD", "Apple": the first word
/// of its first GPU's name), or of every catalog GPU (a CPU, an unknown vendor). nullopt on
/// unknown hardware (nothing declared) or an empty catalog.
std::optional<calc::GpuSpec> class_bound_gpu(const HardwareInfo& hardware, const calc::Catalog& catalog);

/// Why a run's power readings cannot be ("" when they can, or no limit is known): a valid cell's
/// or row's mean gpu_power_w above kPowerLimitFactor × the summed power_limit_w of
/// telemetry.gpus. Its tokens per joule (its tokens ÷ that power × its window, checked at upload)
/// would then be made up.
std::string power_reason(const RunResult& run);

/// Why a throughput is above its roofline (see implausible_reason); "" when none is.
std::string roofline_reason(const RunResult& run, const CatalogMatch& match, const calc::Catalog& catalog);

/// Why the run is implausible for its declared hardware ("" when it is not, or cannot be
/// checked: the model not in the catalog, or the hardware unknown). GPUs the catalog does not know
/// are checked against class_bound_gpu. Without a catalog quantisation, the catalog's smallest one
/// is assumed (the highest roofline). Then its power readings (power_reason).
std::string implausible_reason(const RunResult& run, const CatalogMatch& match, const calc::Catalog& catalog);

/// True for a run on a synthetic model: `engine.synthetic_model` true in the upload, or a model
/// name or file from `speedmatrix synth-model` ("speedmatrix synth ...", a file name with a
/// "synth" word in it).
bool is_synthetic_model(const RunResult& run, const nlohmann::json& document);

/// SHA-256 of what was measured, whatever the run is called: the canonical JSON of the upload
/// without run_id, submitted_by and notes.
std::string measurements_sha256(const nlohmann::json& document);

}  // namespace sm::site
