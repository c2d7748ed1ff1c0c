// The server-side concurrency check: when the server's own running count flags a cell, and the
// report's one warning for it.
#include <gtest/gtest.h>

#include "metrics/cell_metrics.h"
#include "report/report_model.h"

namespace sm {
namespace {

DecodeCell cell(int64_t concurrency, std::optional<double> running, std::optional<double> waiting = std::nullopt) {
  DecodeCell c;
  c.context = 16384;
  c.concurrency = concurrency;
  c.status = CellStatus::Valid;
  c.total_tok_s = 100;
  c.server_running_mean = running;
  c.server_waiting_mean = waiting;
  return c;
}

TEST(ServerConcurrency, BelowRequestedByTheServersOwnCount) {
  EXPECT_TRUE(server_concurrency_below_requested(cell(8, 5.2)));
  EXPECT_FALSE(server_concurrency_below_requested(cell(8, 7.6)));  // a replacement's gap, not a queue
  EXPECT_FALSE(server_concurrency_below_requested(cell(1, 0.5)));  // under one request short
  EXPECT_FALSE(server_concurrency_below_requested(cell(8, std::nullopt)));
  EXPECT_FALSE(server_concurrency_above_requested(cell(8, 5.2)));
}

TEST(ServerConcurrency, AboveRequestedMeansSomeoneElseWasRunning) {
  EXPECT_TRUE(server_concurrency_above_requested(cell(4, 6.0)));
  EXPECT_TRUE(server_concurrency_above_requested(cell(1, 2.0)));
  EXPECT_FALSE(server_concurrency_above_requested(cell(64, 64.7)));
  EXPECT_FALSE(server_concurrency_above_requested(cell(4, std::nullopt)));
}

std::vector<std::string> findings_of(const DecodeCell& c) {
  RunResult r;
  r.decode.push_back(c);
  std::vector<std::string> out;
  for (const auto& f : report::build_report_model(r).findings) out.push_back(f.text);
  return out;
}

TEST(ServerConcurrency, ReportShowsTheSeedsMark) {
  auto found = findings_of(cell(8, 5.2, 2.8));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "Decode 16K × 8: the server ran fewer requests than were sent, by its own count: (5.2/8)*, "
                      "5.2 of 8 running on average and 2.8 waiting.");
  found = findings_of(cell(4, 6.0));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("more requests than this cell sent"), std::string::npos);
  EXPECT_TRUE(findings_of(cell(8, 8.0, 0.0)).empty());
  EXPECT_TRUE(findings_of(cell(8, std::nullopt)).empty());  // not measured: no claim either way
}

}  // namespace
}  // namespace sm
