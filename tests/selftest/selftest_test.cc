// The self-test's harness, run at small sizes: the streamer child starts, the client ingests
// what it sends, and the figures it reports are consistent with each other. No timing
// thresholds: the speed itself is a benchmark (speedmatrix selftest, docs/performance.md).
#include "selftest/selftest.h"

#include <gtest/gtest.h>

namespace sm {
namespace {

TEST(Selftest, SmallPointsReportConsistentFigures) {
  SelftestOptions opts;
  opts.streams = {1, 16};
  opts.seconds = 0.3;
  opts.python = false;
  opts.self_exe = SPEEDMATRIX_BINARY;
  auto points = run_selftest(opts);
  ASSERT_TRUE(points.has_value()) << points.error().message;
  ASSERT_EQ(points->size(), 2u);
  for (const auto& p : *points) {
    SCOPED_TRACE(p.streams);
    EXPECT_GT(p.tokens_per_s, 0);
    EXPECT_GT(p.rss_mib, 1.0);
    EXPECT_GT(p.paced_tokens_per_s, 0);
    EXPECT_LE(p.paced_tokens_per_s, p.tokens_per_s / 4 + 100.0 * p.streams);
    EXPECT_GE(p.lag_p99_us, p.lag_p50_us);
    EXPECT_GE(p.lag_p50_us, 0);
    EXPECT_FALSE(p.python_tokens_per_s.has_value());
  }
  EXPECT_EQ((*points)[0].streams, 1);
  EXPECT_EQ((*points)[1].streams, 16);
}

TEST(Selftest, QuickCeilingIsPositive) {
  auto ceiling = quick_client_ceiling(SPEEDMATRIX_BINARY);
  ASSERT_TRUE(ceiling.has_value()) << ceiling.error().message;
  EXPECT_GT(*ceiling, 0);
}

TEST(Selftest, MissingStreamerBinaryIsAClearError) {
  SelftestOptions opts;
  opts.streams = {1};
  opts.seconds = 0.1;
  opts.python = false;
  opts.self_exe = "/nonexistent/speedmatrix";
  auto points = run_selftest(opts);
  ASSERT_FALSE(points.has_value());
  EXPECT_NE(points.error().message.find("streamer"), std::string::npos) << points.error().message;
}

}  // namespace
}  // namespace sm
