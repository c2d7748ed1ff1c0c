#pragma once
// Redacting a whole RunResult: what runner writes (result.json, reports, the printed report) and
// what upload sends go through this, so no secret (and with --redact-host no hostname or local
// path) leaves the machine. Rules: result/redact.h.
#include "result/redact.h"
#include "result/result.h"

namespace sm {

/// Redacts every free-text field of `result` in place: target_url (as a URL), launch_command
/// (as a command), submitted_by, notes, run warnings, each row's and cell's error and warnings,
/// and the engine's model, model_path, version, build and kv_capacity_source. With drop_host it
/// also blanks hardware.hostname and removes, wherever they appear, the hosts in `options`,
/// target_url's host and the hostname (full and short). Idempotent. A new free-text field of
/// RunResult must be added here (tests/result/redact_result_test.cc checks every string field).
void redact_result(RunResult& result, const RedactOptions& options);

/// A redacted copy.
RunResult redacted(RunResult result, const RedactOptions& options);

}  // namespace sm
