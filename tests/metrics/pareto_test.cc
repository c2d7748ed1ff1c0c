// The Pareto chart's points (issue 34, point 2): one line per context in ascending concurrency,
// only cells that count, the frontier of each line marked; per GPU only when the GPUs are known.
#include "metrics/pareto.h"

#include <gtest/gtest.h>

namespace sm {
namespace {

DecodeCell cell(int64_t context, int64_t n, double per_request, double total, CellStatus status = CellStatus::Valid) {
  DecodeCell c;
  c.context = context;
  c.concurrency = n;
  c.status = status;
  c.per_request_tok_s = per_request;
  c.total_tok_s = total;
  return c;
}

TEST(Pareto, OneLinePerContextInConcurrencyOrderWithItsFrontier) {
  RunResult run;
  // Given out of order; at 16 the box is past saturation: both rates fall, so 16 is dominated by 8.
  run.decode = {cell(0, 8, 25, 200), cell(0, 1, 60, 60), cell(32768, 2, 20, 40), cell(0, 16, 12, 192),
                cell(0, 4, 40, 160), cell(32768, 1, 22, 22)};
  const std::vector<ParetoLine> lines = pareto_lines(run);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].context, 0);
  EXPECT_EQ(lines[1].context, 32768);
  ASSERT_EQ(lines[0].points.size(), 4u);
  const int64_t order[] = {1, 4, 8, 16};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(lines[0].points[i].concurrency, order[i]);
  EXPECT_TRUE(lines[0].points[0].frontier);
  EXPECT_TRUE(lines[0].points[1].frontier);
  EXPECT_TRUE(lines[0].points[2].frontier);
  EXPECT_FALSE(lines[0].points[3].frontier);
  EXPECT_DOUBLE_EQ(lines[0].points[3].total_tok_s, 192);
  EXPECT_DOUBLE_EQ(lines[0].points[3].per_request_tok_s, 12);
  // Each context is its own line: 32K's points are not judged against the 0-token line's.
  EXPECT_TRUE(lines[1].points[0].frontier);
  EXPECT_TRUE(lines[1].points[1].frontier);
}

TEST(Pareto, FrontierKeepsTiesAndDropsPointsBeatenOnOneAxisOnly) {
  std::vector<ParetoPoint> points = {{0, 1, 100, 50, false}, {0, 2, 100, 40, false}, {0, 4, 100, 50, false},
                                     {0, 8, 150, 10, false}};
  mark_pareto_frontier(points);
  EXPECT_TRUE(points[0].frontier);   // equal to 4: neither beats the other
  EXPECT_FALSE(points[1].frontier);  // same total as 1, slower per request
  EXPECT_TRUE(points[2].frontier);
  EXPECT_TRUE(points[3].frontier);   // the most in all
}

TEST(Pareto, OnlyCellsThatCount) {
  RunResult run;
  DecodeCell looping = cell(0, 4, 80, 320);
  looping.output_check = OutputCheckSummary{};
  looping.output_check->verdict = "loop";
  DecodeCell no_per_request = cell(0, 8, 0, 400);
  no_per_request.per_request_tok_s.reset();
  run.decode = {cell(0, 1, 60, 60),       cell(0, 2, 55, 110, CellStatus::Error), looping, no_per_request,
                cell(65536, 1, 30, 30)};
  RetrievalCheck failed;
  failed.context = 65536;
  failed.verdict = RetrievalVerdict::Wrong;
  run.retrieval = {failed};
  const std::vector<ParetoLine> lines = pareto_lines(run);
  ASSERT_EQ(lines.size(), 1u);  // 64K's retrieval check failed: its speed is not the model's
  ASSERT_EQ(lines[0].points.size(), 1u);
  EXPECT_EQ(lines[0].points[0].concurrency, 1);
}

TEST(Pareto, GpuCountOnlyFromKnownHardware) {
  RunResult run;
  EXPECT_FALSE(server_gpu_count(run));  // no GPU: a CPU server, per box only
  run.hardware.gpus.resize(4);
  EXPECT_EQ(server_gpu_count(run), 4);
  run.hardware.source = HardwareSource::Unknown;
  EXPECT_FALSE(server_gpu_count(run));
}

}  // namespace
}  // namespace sm
