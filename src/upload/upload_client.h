#pragma once
// Sends result files to a results site (POST /api/v1/runs): retries with exponential backoff and
// jitter, and leaves `upload-pending.json` beside a result that could not be sent, so
// `speedmatrix upload --pending DIR` can send it later.
//
//   sm::upload::UploadOptions options{.site_url = "http://host:8080", .token = token};
//   auto sent = sm::upload::upload_result_file("runs/x/result.json", options);
//   if (!sent) ...;            // the marker file now names the site and the last error
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/connection_options.h"
#include "result/redact.h"

namespace sm::upload {

/// Where to send and how hard to try.
struct UploadOptions {
  std::string site_url;            ///< base URL of the site ("http://host:8080"); "/api/v1/runs" is added
  std::string token;               ///< upload token (Bearer)
  int max_attempts = 6;            ///< tries in all, ≥ 1
  double initial_backoff_s = 1;    ///< wait before the second try; doubles every try
  double max_backoff_s = 30;       ///< longest wait between tries
  double timeout_s = 60;           ///< one request's limit
  uint64_t jitter_seed = 0;        ///< 0: from the clock; tests set it
  /// Sleeps between tries; tests replace it. Default: std::this_thread::sleep_for.
  std::function<void(double seconds)> sleep;
  /// What upload_result_file blanks before sending (secrets always; drop_host: --redact-host).
  RedactOptions redact;
  /// --cacert, --insecure, --header, --proxy for the site (never the measured server's: a run's
  /// --header values are not sent to a results site).
  ConnectionOptions connection;
};

/// What a successful upload got back.
struct UploadOutcome {
  long http_status = 0;        ///< 201 created, 200 already stored
  std::string run_id;
  std::string run_url;         ///< absolute URL of the run's page
  bool already_stored = false; ///< the site had this run (a retried upload is not a duplicate)
  int attempts = 0;            ///< tries it took
  // Where the run stands with the site's leaderboard, as the site answered (upload/ranking_note.h).
  std::optional<bool> ranked;      ///< in the default ranking; none: the site did not say (an older site)
  std::string profile;             ///< the run's profile as the site read it ("" = none)
  std::string standard_profile;    ///< the profile the site ranks, e.g. "standard/1"
  std::string not_ranked_because;  ///< "no_profile", "quick_profile", "other_profile", "unknown_hardware",
                                   ///< "implausible", "synthetic_model"; "" when ranked
  std::string implausible;         ///< the site's reason when it flagged the run implausible
};

/// The file left beside a result that could not be uploaded.
inline constexpr const char* kPendingFile = "upload-pending.json";

/// Is this failure worth another try? Network errors, timeouts, 408, 429 and 5xx are; other
/// 4xx are not (the same body would be refused again).
bool is_retryable(long http_status, ErrorCode transport_error);

/// The wait before try `attempt` + 1 (attempt ≥ 1): initial × 2^(attempt−1), capped, with
/// "equal jitter" (half fixed, half uniform random) so many clients do not retry in lockstep.
double backoff_s(int attempt, const UploadOptions& options, double unit_random);

/// Sends one result (its JSON text) with retries. Errors say what the site answered last.
Result<UploadOutcome> upload_result_text(const std::string& json_text, const UploadOptions& options);

/// The body upload_result_file sends for a result file's text: the result read, redacted with
/// `redact` (so files written before redaction existed, or without --redact-host, are cleaned
/// too) and written back as JSON. Fails when the text is not a valid result.
Result<std::string> upload_body(const std::string& result_text, const RedactOptions& redact);

/// Reads `path` (a result.json, or a run folder holding one), sends it redacted (upload_body),
/// and keeps the folder's `upload-pending.json` in step: removed on success, written (site URL,
/// run id, attempts, last error — never the token) on failure.
Result<UploadOutcome> upload_result_file(const std::string& path, const UploadOptions& options);

/// A pending upload found on disk.
struct PendingUpload {
  std::string marker_path;  ///< the upload-pending.json
  std::string result_path;  ///< the result.json beside it
  std::string site_url;     ///< where it was meant to go
  std::string last_error;   ///< why it failed last time
};

/// Every upload-pending.json under `dir` (the folder itself and its sub-folders, 4 levels deep).
Result<std::vector<PendingUpload>> find_pending_uploads(const std::string& dir);

/// The folder `path` names when it is a result file, else `path` itself.
std::string run_folder_of(const std::string& path);

}  // namespace sm::upload
