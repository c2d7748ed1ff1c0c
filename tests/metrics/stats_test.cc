#include "metrics/stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sm {
namespace {

TEST(Stats, Percentiles) {
  std::vector<double> v{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(percentile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 1), 4);
  std::vector<double> w{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(percentile(w, 0.9), 9.1);
  EXPECT_DOUBLE_EQ(median({5}), 5);
  std::vector<double> empty;
  EXPECT_TRUE(std::isnan(percentile(empty, 0.5)));
}

TEST(Stats, TimeWeightedCount) {
  std::vector<Interval> iv{{0, 100}, {50, 150}, {-50, 10}};
  // Window [0,100): first covers 100, second 50, third 10 -> 160 / 100.
  EXPECT_DOUBLE_EQ(time_weighted_count(iv, 0, 100), 1.6);
  EXPECT_DOUBLE_EQ(time_weighted_count(iv, 200, 300), 0);
  EXPECT_DOUBLE_EQ(time_weighted_count(iv, 10, 10), 0);
}

}  // namespace
}  // namespace sm
