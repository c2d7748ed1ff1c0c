#pragma once
// Redacting a whole RunResult: what runner writes (result.json, reports, the printed report) and
// what upload sends go through this, so no secret (and with --redact-host no hostname or local
// path) leaves the machine. Rules: result/redact.h.
#include <string>
#include <string_view>

#include "result/redact.h"
#include "result/result.h"

namespace sm {

/// Redacts every free-text field of `result` in place: target_url (as a URL), launch_command
/// (as a command), submitted_by, notes, run warnings, each row's and cell's error and warnings, each retrieval check's excerpt and finish_reason,
/// the engine's model, model_path, version, build and kv_capacity_source, and the source_detail
/// of hardware and client_hardware. With drop_host it also blanks the hostname of hardware and
/// client_hardware, removes IP addresses from their source_detail, and removes, wherever they
/// appear, the hosts in `options`, target_url's host and those hostnames (full and short). Idempotent. A new free-text field of
/// RunResult must be added here (tests/result/redact_result_test.cc checks every string field).
void redact_result(RunResult& result, const RedactOptions& options);

/// An attribution's words (hardware.source_detail, what `run` says about where the server is):
/// redact_text, and with drop_host also every IP address ("gpu-box resolves to 10.0.0.7").
std::string redact_attribution(std::string_view text, const RedactOptions& options);

/// A redacted copy.
RunResult redacted(RunResult result, const RedactOptions& options);

}  // namespace sm
