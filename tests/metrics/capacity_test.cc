// Users at a speed floor (issue 34, point 1): read from the decode cells per context; measured,
// interpolated only where the curve allows, "at least" when every measured concurrency met it.
#include "metrics/capacity.h"

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

const CapacityPoint* find(const std::vector<CapacityPoint>& points, int64_t context, double floor) {
  for (const auto& p : points)
    if (p.context == context && p.floor_tok_s == floor) return &p;
  return nullptr;
}

TEST(Capacity, MeasuredInterpolatedAtLeastAndNone) {
  // Per request 60, 50, 40, 25, 12 at 1..16 streams; total rising.
  const std::vector<DecodeCell> cells{cell(0, 1, 60, 60),  cell(0, 2, 50, 100), cell(0, 4, 40, 160),
                                      cell(0, 8, 25, 200), cell(0, 16, 12, 192), cell(32768, 1, 8, 8)};
  const double floors[] = {10, 20, 30, 70};
  const auto points = capacity_points(cells, floors);
  // 20 tok/s: between 8 (25) and 16 (12): total falls there (200 -> 192), so no line: 8, measured.
  const CapacityPoint* p = find(points, 0, 20);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->users, 8);
  EXPECT_EQ(p->basis, "measured");
  EXPECT_DOUBLE_EQ(*p->total_tok_s, 200);
  // 30 tok/s: between 4 (40) and 8 (25), total rising: 4 + 4 x (40-30)/(40-25) = 6.67 -> 6 users.
  p = find(points, 0, 30);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->users, 6);
  EXPECT_EQ(p->basis, "interpolated");
  EXPECT_DOUBLE_EQ(*p->total_tok_s, 180);  // halfway from 160 to 200
  // 10 tok/s: every measured concurrency meets it.
  p = find(points, 0, 10);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->users, 16);
  EXPECT_EQ(p->basis, "at_least");
  // 70 tok/s: not even one request.
  p = find(points, 0, 70);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->users, 0);
  EXPECT_EQ(p->basis, "none");
  EXPECT_FALSE(p->total_tok_s.has_value());
  // 32K: one request at 8 tok/s meets none of the floors.
  p = find(points, 32768, 10);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->users, 0);
}

TEST(Capacity, TheFloorMustHoldFromOneRequestUp) {
  // A noisy dip at 2 breaks the run: 4 meeting the floor again does not count.
  const std::vector<DecodeCell> cells{cell(0, 1, 30, 30), cell(0, 2, 18, 36), cell(0, 4, 21, 84)};
  const double floors[] = {20};
  const auto points = capacity_points(cells, floors);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].users, 1);
  // 1 -> 2: per-request falls and total rises, so the line between: 1 + (30-20)/(30-18) = 1.83 -> 1.
  EXPECT_EQ(points[0].basis, "measured");
}

TEST(Capacity, CellsThatDidNotMeasureAreLeftOutAndUnmeasuredLowEndsGiveNoPoint) {
  const std::vector<DecodeCell> cells{cell(0, 4, 30, 120), cell(0, 8, 15, 120, CellStatus::OverCapacity),
                                      cell(1024, 4, 5, 20)};
  const double floors[] = {10, 20};
  const auto points = capacity_points(cells, floors);
  // Context 0: 4 meets both floors and is the highest measured: at least 4.
  ASSERT_NE(find(points, 0, 20), nullptr);
  EXPECT_EQ(find(points, 0, 20)->basis, "at_least");
  // Context 1K: 4 requests already below: fewer were not measured, so no point.
  EXPECT_EQ(find(points, 1024, 10), nullptr);
}

TEST(Capacity, ARunCountsOnlyTheCellsTheRankingsCount) {
  RunResult run;
  DecodeCell looping = cell(0, 4, 30, 120);
  looping.output_check = OutputCheckSummary{};
  looping.output_check->verdict = "loop";
  run.decode = {cell(0, 1, 40, 40), cell(0, 2, 35, 70), looping, cell(32768, 1, 25, 25), cell(32768, 2, 22, 44)};
  // With the looping cell, 0 would serve "at least 4" at 20 tok/s; without it, at least 2.
  const auto all = capacity_points(run.decode, std::vector<double>{20});
  ASSERT_NE(find(all, 0, 20), nullptr);
  EXPECT_EQ(find(all, 0, 20)->users, 4);
  std::vector<CapacityPoint> counted = capacity_of_run(run);
  ASSERT_NE(find(counted, 0, 20), nullptr);
  EXPECT_EQ(find(counted, 0, 20)->users, 2);
  EXPECT_EQ(find(counted, 0, 20)->basis, "at_least");
  ASSERT_NE(find(counted, 32768, 20), nullptr);
  // A context whose retrieval check failed has no figure.
  RetrievalCheck failed;
  failed.context = 32768;
  failed.verdict = RetrievalVerdict::Truncated;
  run.retrieval = {failed};
  counted = capacity_of_run(run);
  EXPECT_EQ(find(counted, 32768, 20), nullptr);
  EXPECT_EQ(run_capacity(run).size(), counted.size());  // nothing stored: worked out the same way
}

TEST(Capacity, TheRunsFloorsOrTheDefaults) {
  RunSettings s;
  EXPECT_EQ(user_floors(s), (std::vector<double>{10, 20, 50}));
  s.user_floors_tok_s = {5, 15};
  EXPECT_EQ(user_floors(s), (std::vector<double>{5, 15}));
}

}  // namespace
}  // namespace sm
