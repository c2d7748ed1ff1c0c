#include "result/redact_document.h"

#include "result/redact_result.h"
#include "result/result_json.h"

namespace sm {

bool redact_result_document(nlohmann::json& document, RunResult& result, const RedactOptions& options) {
  RunResult clean = redacted(result, options);
  const nlohmann::json before = to_json(result);
  const nlohmann::json after = to_json(clean);
  if (before == after) return false;
  result = std::move(clean);
  // The differences are redacted strings at paths the document has (a string redaction changed
  // was in it): replace those, keep the rest. A document whose shape differs from the model's
  // where a secret was (none is known) is replaced by the redacted model: the secret goes first.
  try {
    document = document.patch(nlohmann::json::diff(before, after));
  } catch (const nlohmann::json::exception&) {
    document = after;
  }
  return true;
}

}  // namespace sm
