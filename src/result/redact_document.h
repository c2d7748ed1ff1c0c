#pragma once
// Redacting a result as a JSON document (what the site stores), with the rules redact_result
// applies to a RunResult, keeping every field the result model does not know (a newer client's).
// The site runs it on every upload and once over the runs stored before it did (store migration 7).
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "result/redact.h"

namespace sm {

/// Redacts `document` in place: the strings redact_result changes are changed at their paths and
/// nothing else is touched. Returns whether anything changed; fails (leaving it as it was) when
/// the document is not a result.
Result<bool> redact_result_document(nlohmann::json& document, const RedactOptions& options = {});

}  // namespace sm
