#pragma once
// The /api page's body, made from the OpenAPI document (data/site/openapi.json): its Markdown
// descriptions rendered, and for each route its parameters, its answers and the fields of each
// JSON answer (followed through $ref into components/schemas, arrays and nested objects).
#include <string>

#include <nlohmann/json.hpp>

namespace sm::site {

/// The body HTML of the API page for `openapi` (an OpenAPI 3.1 document).
std::string api_docs_body(const nlohmann::ordered_json& openapi);

}  // namespace sm::site
