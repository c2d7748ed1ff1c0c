#pragma once
// `speedmatrix run --upload URL`: after the matrix is measured, send the run folder's result.json.
#include <cstdint>
#include <string>

namespace sm::upload {

/// The upload token: `flag` when set, else $SPEEDMATRIX_UPLOAD_TOKEN, else empty.
std::string upload_token_from(const std::string& flag);

/// Uploads the result.json of `run_folder` (the folder the run just wrote, as run_matrix says:
/// not the newest one under runs/, which another run may have written since) to `site_url` and
/// prints where it went (stderr). Returns
/// `run_exit_code` when that was not 0 (nothing uploaded: a failed or interrupted run is not
/// complete) or when the upload succeeded, and 1 when the upload failed; the run stays on disk
/// with upload-pending.json beside it for `speedmatrix upload --pending`. `redact_host`: the
/// run's --redact-host (secrets are always redacted).
int upload_after_run(const std::string& run_folder, const std::string& site_url, const std::string& token,
                     int run_exit_code, bool redact_host = false);

}  // namespace sm::upload
