#include "support/result_schema.h"

#include <nlohmann/json.hpp>

#include <fstream>

#include "site/json_schema.h"
#include "site/site_data.h"

namespace sm::test {

::testing::AssertionResult follows_result_schema(const std::string& result_json_path) {
  auto text = site::site_data_file("result-schema.json");
  if (!text) return ::testing::AssertionFailure() << "the result schema is not embedded";
  auto schema = site::JsonSchema::parse(*text);
  if (!schema) return ::testing::AssertionFailure() << "the result schema does not parse: " << schema.error().message;
  std::ifstream in(result_json_path);
  if (!in) return ::testing::AssertionFailure() << result_json_path << " cannot be read";
  auto ok = schema->validate(nlohmann::json::parse(in));
  if (!ok) return ::testing::AssertionFailure() << result_json_path << ": " << ok.error().message;
  return ::testing::AssertionSuccess();
}

}  // namespace sm::test
