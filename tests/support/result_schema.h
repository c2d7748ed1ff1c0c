#pragma once
// Whether a written result.json follows the project's result schema (docs/result-schema.json, as
// the site embeds it): EXPECT_TRUE(test::follows_result_schema(path)).
#include <gtest/gtest.h>

#include <string>

namespace sm::test {

::testing::AssertionResult follows_result_schema(const std::string& result_json_path);

}  // namespace sm::test
