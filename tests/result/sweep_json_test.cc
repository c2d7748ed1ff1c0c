// The sweep section of result.json: what a sweep left out and its queueing figures survive the
// round trip and satisfy docs/result-schema.json.
#include "result/sweep_json.h"

#include <gtest/gtest.h>

#include "site/json_schema.h"
#include "site/site_data.h"

namespace sm {
namespace {

TEST(SweepJson, SkippedRatesAndInFlightGrowthRoundTrip) {
  SweepInfo s;
  s.rates = "4,8,16,32";
  SweepPoint p;
  p.rate_rps = 16;
  p.saturated = true;
  p.saturation_reason = "requests piled up";
  p.queue_growth_ms = 1200;
  p.in_flight_growth = 37.5;
  s.points.push_back(p);
  s.skipped_rates_rps = {32, 64};
  const nlohmann::json j = sweep_to_json(s);
  EXPECT_EQ(j["skipped_rates_rps"], nlohmann::json::parse("[32.0, 64.0]"));
  EXPECT_EQ(j["points"][0]["in_flight_growth"], 37.5);
  auto back = sweep_from_json(j);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->skipped_rates_rps, (std::vector<double>{32, 64}));
  ASSERT_EQ(back->points.size(), 1u);
  EXPECT_EQ(back->points[0].in_flight_growth, 37.5);
  EXPECT_EQ(back->points[0].queue_growth_ms, 1200.0);

  // The schema's sweep section (with the definitions its $refs name), against the section alone.
  const nlohmann::json schema = nlohmann::json::parse(site::site_data_file("result-schema.json").value());
  nlohmann::json section = schema["properties"]["sweep"];
  section["$defs"] = schema["$defs"];
  auto sub = site::JsonSchema::parse(section.dump());
  ASSERT_TRUE(sub.has_value()) << sub.error().message;
  EXPECT_TRUE(sub->validate(j).has_value());
  nlohmann::json bad = j;
  bad["skipped_rates_rps"] = nlohmann::json::array({"fast"});
  EXPECT_FALSE(sub->validate(bad).has_value());
  EXPECT_FALSE(sweep_from_json(bad).has_value());
}

// A rate's output check (a loop, with its excerpt) survives the round trip and meets the schema.
TEST(SweepJson, OutputCheckRoundTrips) {
  SweepInfo s;
  SweepPoint p;
  p.rate_rps = 2;
  OutputCheckSummary& o = p.output_check.emplace();
  o.verdict = "loop";
  o.requests = 20;
  o.repeat = 6;
  o.flaw = "repeat";
  o.excerpt = " the the the";
  s.points.push_back(p);
  s.points.push_back(SweepPoint{});  // no requests checked: no object
  const nlohmann::json j = sweep_to_json(s);
  EXPECT_EQ(j["points"][0]["output_check"]["verdict"], "loop");
  EXPECT_FALSE(j["points"][1].contains("output_check"));
  auto back = sweep_from_json(j);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  ASSERT_TRUE(back->points[0].output_check.has_value());
  EXPECT_EQ(back->points[0].output_check->repeat, 6);
  EXPECT_EQ(back->points[0].output_check->excerpt, " the the the");
  EXPECT_FALSE(back->points[1].output_check.has_value());

  const nlohmann::json schema = nlohmann::json::parse(site::site_data_file("result-schema.json").value());
  nlohmann::json section = schema["properties"]["sweep"];
  section["$defs"] = schema["$defs"];
  auto sub = site::JsonSchema::parse(section.dump());
  ASSERT_TRUE(sub.has_value()) << sub.error().message;
  EXPECT_TRUE(sub->validate(j).has_value());
  nlohmann::json bad = j;
  bad["points"][0]["output_check"]["verdict"] = "fine";
  EXPECT_FALSE(sub->validate(bad).has_value());
}

}  // namespace
}  // namespace sm
