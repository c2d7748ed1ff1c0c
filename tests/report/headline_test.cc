// The HTML report's headline strip, and a prediction shown without times or a fake version.
#include "report/report_headline.h"

#include <gtest/gtest.h>

#include "report/report.h"

namespace sm::report {
namespace {

RunResult two_cells() {
  RunResult r;
  DecodeCell a;
  a.context = 0;
  a.concurrency = 1;
  a.status = CellStatus::Valid;
  a.total_tok_s = 180.0;
  a.per_request_tok_s = 181.5;
  DecodeCell b = a;
  b.context = 16384;
  b.concurrency = 64;
  b.total_tok_s = 1081.0;
  b.per_request_tok_s = 17.0;
  DecodeCell over = b;
  over.concurrency = 128;
  over.status = CellStatus::OverCapacity;
  over.total_tok_s = 99999.0;  // not measured: never the headline
  r.decode = {a, b, over};
  PrefillRow p;
  p.context = 8192;
  p.status = CellStatus::Valid;
  p.prompt_tok_s = 10600;
  p.ttft_ms = 773;
  r.prefill = {p};
  r.engine.kv_capacity_tokens = 530000;
  return r;
}

TEST(Headline, BestTotalSingleStreamPrefillAndKv) {
  const auto h = headline_figures(two_cells());
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[0].label, "Best total decode");
  EXPECT_EQ(h[0].value, "1,081.0 tok/s");
  EXPECT_EQ(h[0].detail, "16K context × 64 requests");
  EXPECT_EQ(h[1].value, "181.5 tok/s");
  EXPECT_EQ(h[2].value, "10.6K tok/s");
  EXPECT_EQ(h[2].detail, "8K prompt, TTFT 773 ms");
  EXPECT_EQ(h[3].value, "530,000 tokens");
  EXPECT_TRUE(headline_figures(RunResult{}).empty());
}

TEST(Headline, StripComesBeforeTheMetadataCards) {
  const std::string html = render_report(two_cells(), ReportFormat::Html, {});
  const size_t strip = html.find("<section class=\"headline\"");
  ASSERT_NE(strip, std::string::npos);
  EXPECT_LT(strip, html.find("<div class=\"facts\">"));
}

TEST(Headline, PredictionHasNoTimesAndNoVersion) {
  RunResult r = two_cells();
  r.kind = "predicted";
  r.engine.kind = "vllm";
  r.engine.version = "predicted";
  r.started_at = "2026-12-03T10:00:00Z";
  r.finished_at = "2026-12-03T10:00:00Z";
  const std::string html = render_report(r, ReportFormat::Html, {});
  EXPECT_EQ(html.find("<dt>Started</dt>"), std::string::npos);
  EXPECT_EQ(html.find("<dt>Finished</dt>"), std::string::npos);
  EXPECT_EQ(html.find("<dd>predicted</dd>"), std::string::npos);
  EXPECT_EQ(html.find("vllm · predicted"), std::string::npos);
  r.kind = "measured";
  r.engine.version = "0.11.0";
  EXPECT_NE(render_report(r, ReportFormat::Html, {}).find("<dt>Started</dt>"), std::string::npos);
}

}  // namespace
}  // namespace sm::report
