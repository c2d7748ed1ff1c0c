#pragma once
// A JSON Schema validator for the subset the result schema (docs/result-schema.json) and the
// site's upload rules (data/site/upload-rules.json) use:
// type (one or a list), properties, required, additionalProperties, items, enum, const,
// minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, minItems,
// maxItems and local "$ref" ("#/$defs/name"; keywords beside it apply too, as in 2020-12).
// Other keywords (title, description, $schema, ...) are ignored. A number that is not finite
// (NaN, infinity: possible in a document built in memory, never in JSON text) is always refused.
//
//   auto schema = sm::site::JsonSchema::parse(text);        // Result<JsonSchema>
//   if (auto ok = schema->validate(document); !ok)
//     ...ok.error().message == "$.decode[3].status: \"bogus\" is not one of: valid, ..."
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace sm::site {

class JsonSchema {
 public:
  /// Parses a schema document; fails on invalid JSON, an unknown type name, a bad pattern or
  /// a $ref that points nowhere.
  static Result<JsonSchema> parse(std::string_view text);

  /// Checks `document`; the error names the first violation by its JSON path ("$.a[2].b").
  /// Thread-safe (the schema is immutable once parsed).
  Result<void> validate(const nlohmann::json& document) const;

 private:
  Result<void> check_node(const nlohmann::json& schema, std::string_view where);
  Result<void> validate_node(const nlohmann::json& schema, const nlohmann::json& value, const std::string& path,
                             int depth) const;
  const nlohmann::json* resolve(const nlohmann::json& schema) const;

  std::shared_ptr<const nlohmann::json> root_;
  std::shared_ptr<std::map<std::string, std::regex>> patterns_;  ///< compiled "pattern" values
};

}  // namespace sm::site
