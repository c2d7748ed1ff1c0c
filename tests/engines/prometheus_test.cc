#include "engines/prometheus.h"

#include <gtest/gtest.h>

namespace sm {
namespace {

TEST(Prometheus, ParsesLabelsAndValues) {
  auto s = parse_prometheus(
      "# HELP x y\nfoo 1.5\nbar{a=\"1\",b=\"two words\",c=\"q\\\"uote\"} 2e3\nbad line\n"
      "baz{unterminated=\"x} 1\n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "foo");
  EXPECT_DOUBLE_EQ(s[0].value, 1.5);
  EXPECT_EQ(s[1].labels.at("b"), "two words");
  EXPECT_EQ(s[1].labels.at("c"), "q\"uote");
  EXPECT_DOUBLE_EQ(s[1].value, 2000);
  EXPECT_TRUE(find_sample(s, "bar").has_value());
  EXPECT_FALSE(find_sample(s, "nope").has_value());
}

TEST(Prometheus, AcrossEnginesCountsEachEngineOnceAndCombines) {
  auto s = parse_prometheus(
      "g{engine=\"0\",tp_rank=\"0\"} 0.25\n"
      "g{engine=\"0\",tp_rank=\"1\"} 0.25\n"  // the same engine seen from its second rank
      "g{engine=\"1\",tp_rank=\"0\"} 0.75\n"
      "old 9\n"
      "nan_only NaN\n");
  EXPECT_DOUBLE_EQ(*across_engines(s, {"g"}, AcrossEngines::Sum), 1.0);
  EXPECT_DOUBLE_EQ(*across_engines(s, {"g"}, AcrossEngines::Max), 0.75);
  EXPECT_DOUBLE_EQ(*across_engines(s, {"g"}, AcrossEngines::Mean), 0.5);
  // Aliases: the first name present wins; the values of two names are never mixed.
  EXPECT_DOUBLE_EQ(*across_engines(s, {"missing", "old", "g"}, AcrossEngines::Sum), 9);
  EXPECT_DOUBLE_EQ(*across_engines(s, {"g", "old"}, AcrossEngines::Sum), 1.0);
  EXPECT_FALSE(across_engines(s, {"missing"}, AcrossEngines::Sum).has_value());
  EXPECT_FALSE(across_engines(s, {"nan_only"}, AcrossEngines::Max).has_value());
}

}  // namespace
}  // namespace sm
