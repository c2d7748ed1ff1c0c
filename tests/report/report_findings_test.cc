#include <gtest/gtest.h>

#include <algorithm>

#include "report/report_sections.h"

namespace sm::report {
namespace {

PrefillRow row(int64_t context, double ttft_ms) {
  PrefillRow p;
  p.context = context;
  p.ttft_ms = ttft_ms;
  p.prompt_tok_s = static_cast<double>(context) / (ttft_ms / 1e3);
  p.prompt_tokens = context;
  return p;
}

std::vector<std::string> slow_row_warnings(const RunResult& r) {
  std::vector<std::string> out;
  for (const auto& f : section::findings(r))
    if (f.text.find("first token took") != std::string::npos) out.push_back(f.text);
  return out;
}

// What the H200 run showed before engines were warmed up (docs/performance.md): the first row
// paid the Vulkan backend's pipeline compilation.
TEST(ReportFindings, APrefillRowSlowerThanALongerOneIsCalledOut) {
  RunResult r;
  r.prefill = {row(1024, 4734.1), row(8192, 145.7), row(16384, 400.0)};
  auto warnings = slow_row_warnings(r);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "Prefill 1K: its first token took 4,734 ms, longer than the 146 ms of the longer 8K prompt: this row paid "
            "for more than its prompt (an engine's one-time start-up work, another client's load); measure it again.");
}

TEST(ReportFindings, PrefillRowsInTheirOrderOrWithinTheSlackAreNot) {
  RunResult r;
  r.prefill = {row(1024, 60), row(8192, 146), row(16384, 400)};
  EXPECT_TRUE(slow_row_warnings(r).empty());
  // Short rows are dominated by a fixed cost and may come out a little slower than a longer one.
  r.prefill = {row(128, 38), row(512, 12)};  // 38 <= 1.5 x 12 + 20
  EXPECT_TRUE(slow_row_warnings(r).empty());
  r.prefill = {row(128, 39), row(512, 12)};
  EXPECT_EQ(slow_row_warnings(r).size(), 1u);
  // Rows without numbers say nothing either way.
  r.prefill = {row(1024, 4734.1), row(8192, 145.7)};
  r.prefill[1].status = CellStatus::Error;
  r.prefill[1].ttft_ms.reset();
  EXPECT_TRUE(slow_row_warnings(r).empty());
}

}  // namespace
}  // namespace sm::report
