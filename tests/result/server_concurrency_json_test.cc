// server_running_mean / server_waiting_mean in result.json: written, read back, absent in older
// files, and allowed by docs/result-schema.json.
#include <gtest/gtest.h>

#include "result/result_json.h"
#include "site/json_schema.h"
#include "site/site_data.h"

namespace sm {
namespace {

RunResult with_cell(std::optional<double> running, std::optional<double> waiting) {
  RunResult r;
  r.run_id = "r1";
  DecodeCell c;
  c.context = 0;
  c.concurrency = 8;
  c.total_tok_s = 900;
  c.server_running_mean = running;
  c.server_waiting_mean = waiting;
  r.decode.push_back(c);
  return r;
}

TEST(ServerConcurrencyJson, RoundTripsAndNullWhenNotMeasured) {
  auto j = to_json(with_cell(5.25, std::nullopt));
  EXPECT_EQ(j["decode"][0]["server_running_mean"], 5.25);
  EXPECT_TRUE(j["decode"][0]["server_waiting_mean"].is_null());
  auto back = result_from_json(j);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->decode[0].server_running_mean, 5.25);
  EXPECT_FALSE(back->decode[0].server_waiting_mean.has_value());

  j["decode"][0].erase("server_running_mean");  // a file written before the fields existed
  j["decode"][0].erase("server_waiting_mean");
  back = result_from_json(j);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->decode[0].server_running_mean.has_value());
}

TEST(ServerConcurrencyJson, SchemaAllowsThem) {
  auto schema_text = site::site_data_file("result-schema.json");
  ASSERT_TRUE(schema_text.has_value());
  auto schema = site::JsonSchema::parse(*schema_text);
  ASSERT_TRUE(schema.has_value()) << schema.error().message;
  auto ok = schema->validate(to_json(with_cell(7.5, 0.5)));
  EXPECT_TRUE(ok.has_value()) << ok.error().message;
  auto j = to_json(with_cell(7.5, 0.5));
  j["decode"][0]["server_running_mean"] = "seven";
  EXPECT_FALSE(schema->validate(j).has_value());
}

}  // namespace
}  // namespace sm
