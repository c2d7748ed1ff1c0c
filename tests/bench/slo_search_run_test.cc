// run --slo end to end against the built-in engine: the matrix measures 1 and 32 requests at
// once, a TPOT target between what they show puts the answer between them, and probes bisect it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "bench/resume.h"
#include "bench/runner.h"
#include "bench/slo_search.h"
#include "result/result_json.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The embedded engine at 1K: TPOT about 5.6 ms for one request and 11.2 ms for 32 (its decode
// calculator's figures; a request's TPOT barely moves with the client). 8.5 ms lies between.
TEST(SloSearchRun, TheEmbeddedEngineIsBisectedBetweenItsMatrixCells) {
  test::TempDir dir;
  RunConfig c;
  c.embedded_sim = true;
  c.retrieval_check = false;
  c.matrix.contexts = {1024};
  c.contexts_given = true;
  c.matrix.concurrency = {1, 32};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 64;
  c.matrix.duration_s = 0.4;
  c.out_dir = dir.file("run");
  c.quiet = true;
  c.client_selftest = false;
  c.telemetry = false;
  auto spec = parse_slo_spec("tpot=8.5ms");
  ASSERT_TRUE(spec.has_value());
  c.slo = *spec;
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  ASSERT_TRUE(result->settings.slo.has_value());
  EXPECT_EQ(result->settings.slo->tpot_ms, 8.5);
  for (const auto& cell : result->decode) {
    ASSERT_TRUE(cell.slo.has_value()) << cell.concurrency;
    EXPECT_EQ(cell.slo->meets, cell.concurrency == 1) << cell.concurrency << ": TPOT " << cell.slo->tpot_ms.value_or(-1);
  }
  ASSERT_EQ(result->slo_search.size(), 1u);
  const SloSearch& s = result->slo_search[0];
  EXPECT_EQ(s.context, 1024);
  EXPECT_EQ(s.max_concurrency, 32);
  EXPECT_EQ(s.basis, "found") << slo_search_summary(s);
  EXPECT_GE(s.concurrency, 1);
  EXPECT_LT(s.concurrency, 32);
  EXPECT_EQ(s.failing_concurrency, s.concurrency + 1);
  EXPECT_GE(s.probes, 1);
  EXPECT_LE(s.probes, kDefaultSloMaxProbes);
  ASSERT_EQ(s.points.size(), static_cast<size_t>(2 + s.probes));
  EXPECT_EQ(s.points[0].source, "matrix");
  EXPECT_EQ(s.points[1].source, "matrix");
  for (size_t i = 2; i < s.points.size(); ++i) {
    EXPECT_EQ(s.points[i].source, "probe");
    EXPECT_EQ(s.points[i].status, CellStatus::Valid) << s.points[i].error;
    ASSERT_TRUE(s.points[i].judgement.has_value());
    EXPECT_GT(s.points[i].judgement->requests, 0);
  }
  const SloPoint* at = slo_answer_point(s);
  ASSERT_NE(at, nullptr);
  EXPECT_LE(*at->judgement->tpot_ms, 8.5);
  EXPECT_GT(*at->judgement->goodput_tok_s, 0);
  // The probes stayed out of the matrix.
  EXPECT_EQ(result->decode.size(), 2u);
  // Reports: a section, CSV rows; a finished run has nothing left for --resume.
  EXPECT_NE(read_text(dir.file("run/report.md")).find("## SLO search"), std::string::npos);
  EXPECT_NE(read_text(dir.file("run/report.html")).find("id=\"slo-table\""), std::string::npos);
  const std::string csv = read_text(dir.file("run/measurements.csv"));
  EXPECT_NE(csv.find(",slo_probe,"), std::string::npos);
  EXPECT_NE(csv.find(",slo_search,1024,"), std::string::npos);
  EXPECT_TRUE(resume_work(*result, false).nothing_to_do());
}

}  // namespace
}  // namespace sm
