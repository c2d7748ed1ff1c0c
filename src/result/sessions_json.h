#pragma once
// The sessions workload's part of result.json (docs/result-schema.json, `settings.sessions` and
// `sessions`). Used by result_json.cc.
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "result/sessions.h"

namespace sm {

nlohmann::json sessions_settings_to_json(const SessionsSettings& s);
SessionsSettings sessions_settings_from_json(const nlohmann::json& j);
nlohmann::json sessions_to_json(const SessionsResult& r);
Result<SessionsResult> sessions_from_json(const nlohmann::json& j);

}  // namespace sm
