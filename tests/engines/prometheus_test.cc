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

}  // namespace
}  // namespace sm
