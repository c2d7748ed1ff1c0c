#pragma once
// Redacting a result as a JSON document (what the site stores), with the rules redact_result
// applies to a RunResult, keeping every field the result model does not know (a newer client's).
// The site runs it on every upload and once over the runs stored before it did (store migration 7).
#include <nlohmann/json.hpp>

#include "result/redact.h"
#include "result/result.h"

namespace sm {

/// Redacts `document` in place: the strings redact_result changes are changed at their paths and
/// nothing else is touched. `result` is the document already read (result_from_json); it is
/// redacted too, so the caller's copy matches what is stored. Returns whether anything changed.
bool redact_result_document(nlohmann::json& document, RunResult& result, const RedactOptions& options = {});

}  // namespace sm
