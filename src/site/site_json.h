#pragma once
// JSON shapes of the API (described in data/site/openapi.json) and the JSON responses.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "site/site_http.h"
#include "store/store_types.h"

namespace sm::site {

/// A run as GET /api/v1/runs lists it.
nlohmann::json summary_to_json(const store::RunSummary& summary);

/// A GPU or model group as /api/v1/hardware and /api/v1/models list it; `other` names the
/// distinct count ("models" per GPU, "gpus" per model).
nlohmann::json group_to_json(const store::GroupSummary& group, std::string_view other);

/// A JSON response.
SiteResponse json_response(int status, const nlohmann::json& body);

/// {"error": {"status": 400, "code": "schema_violation", "message": "..."}}
SiteResponse error_response(int status, std::string_view code, std::string_view message);

/// "/runs/<id>" with the id percent-encoded.
std::string run_page_path(std::string_view run_id);

}  // namespace sm::site
