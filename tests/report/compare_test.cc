#include "report/compare_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "report/golden.h"
#include "report/report.h"

namespace sm::report {
namespace {

CompareValue value(double v, double standard_error = 0) {
  CompareValue c;
  c.present = true;
  c.status = CellStatus::Valid;
  c.value = v;
  c.standard_error = standard_error;
  return c;
}

TEST(CompareNoise, FloorDecidesWhenCellsHaveNoSpread) {
  CompareValue a = value(100);
  CompareValue b = value(101.9);
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_EQ(b.change, Change::Same);
  EXPECT_EQ(b.ratio_text, "≈1.02×");
  b = value(102.5);
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_EQ(b.change, Change::Better);
  EXPECT_EQ(b.ratio_text, "1.02×");
  b = value(96);
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_EQ(b.change, Change::Worse);
  // TTFT and prefill rest on few requests: 5%; lower TTFT is better.
  b = value(96);
  judge(a, b, CompareMetric::DecodeTtft);
  EXPECT_EQ(b.change, Change::Same);
  b = value(90);
  judge(a, b, CompareMetric::DecodeTtft);
  EXPECT_EQ(b.change, Change::Better);
  b = value(104);
  judge(a, b, CompareMetric::PromptTokS);
  EXPECT_EQ(b.change, Change::Same);
}

TEST(CompareNoise, CellSpreadWidensTheThreshold) {
  // Two cells with 3% standard error each: threshold 2·√(0.03² + 0.03²) ≈ 8.5%.
  CompareValue a = value(100, 0.03);
  CompareValue b = value(108, 0.03);
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_NEAR(b.threshold, 2 * std::sqrt(2 * 0.03 * 0.03), 1e-12);
  EXPECT_EQ(b.change, Change::Same);
  b = value(109, 0.03);
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_EQ(b.change, Change::Better);
}

TEST(CompareNoise, StandardErrorFromTheCell) {
  DecodeCell c;
  c.concurrency = 4;
  c.output_tokens = 400;  // 100 tokens per request
  c.tbt_ms = 10;
  c.tbt_p90_ms = 12.5632;  // p90 − p50 = 1.2816 σ: σ = 2 ms, 20% of the median
  EXPECT_NEAR(decode_standard_error(c, CompareMetric::TotalTokS), 0.2 / 10, 1e-9);
  c.ttft_ms = 100;
  c.ttft_p90_ms = 125.632;  // relative sigma 0.2
  c.requests_started = 16;
  EXPECT_NEAR(decode_standard_error(c, CompareMetric::DecodeTtft), 1.2533 * 0.2 / 4, 1e-9);
  DecodeCell unknown;
  unknown.concurrency = 1;
  EXPECT_EQ(decode_standard_error(unknown, CompareMetric::TotalTokS), 0);
}

TEST(CompareNoise, ACellsIntervalIsItsNoise) {
  // A cell that carries its 95% interval: noise = half-width ÷ 1.96 ÷ value, whatever its spread.
  DecodeCell c;
  c.concurrency = 4;
  c.output_tokens = 400;
  c.tbt_ms = 10;
  c.tbt_p90_ms = 12.5632;
  c.total_tok_s = 1000;
  c.total_tok_s_ci = 19.59964;  // 1% standard error
  c.per_request_tok_s = 250;
  c.per_request_tok_s_ci = 9.79982;  // 2%
  EXPECT_NEAR(decode_standard_error(c, CompareMetric::TotalTokS), 0.01, 1e-9);
  EXPECT_NEAR(decode_standard_error(c, CompareMetric::PerRequestTokS), 0.02, 1e-9);
}

TEST(CompareNoise, MissingValuesHaveNoRatio) {
  CompareValue a;
  a.present = true;
  a.status = CellStatus::OverCapacity;
  CompareValue b = value(100);
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_FALSE(b.ratio.has_value());
  EXPECT_EQ(b.change, Change::None);
  EXPECT_TRUE(b.ratio_text.empty());
}

TEST(CompareModel, SeedAgainstVariant) {
  CompareModel m = build_compare_model({test::seed_fixture(), test::variant_fixture()}, {"seed", "variant"});
  ASSERT_EQ(m.runs.size(), 2u);
  EXPECT_EQ(m.runs[0].letter, "A");
  EXPECT_EQ(m.runs[1].label, "variant");
  EXPECT_EQ(m.decode.rows.size(), 48u);
  EXPECT_EQ(m.prefill.rows.size(), 5u);
  ASSERT_EQ(m.summaries.size(), 1u);
  const CompareSummary& s = m.summaries[0];
  EXPECT_EQ(s.cells, 21);
  EXPECT_EQ(s.better, 7);   // context 0: +10%
  EXPECT_EQ(s.worse, 4);    // 32K: −7%
  EXPECT_EQ(s.same, 10);    // 16K, 64K, 128K ×1, 248K: within 2%
  EXPECT_EQ(s.only_first, 2);  // 64K × 4 pending and 128K × 2 error in B
  EXPECT_EQ(s.only_this, 1);   // 0 × 128 fits B's larger KV cache
  ASSERT_TRUE(s.geo_mean.has_value());
  bool kv_differs = false;
  for (const auto& d : m.setting_differences) kv_differs |= d.starts_with("KV cache");
  EXPECT_TRUE(kv_differs);
  // 0 × 1: 181.7 → 199.9.
  const CompareRow& first = m.decode.rows[0];
  EXPECT_EQ(first.context, 0);
  EXPECT_EQ(first.concurrency, 1);
  EXPECT_EQ(first.values[0][0].text, "181.7");
  EXPECT_EQ(first.values[0][1].text, "199.9");
  EXPECT_EQ(first.values[0][1].ratio_text, "1.10×");
}

TEST(CompareModel, ComparingARunWithItselfIsAllWithinNoise) {
  CompareModel m = build_compare_model({test::seed_fixture(), test::seed_fixture(), test::seed_fixture()}, {});
  ASSERT_EQ(m.summaries.size(), 2u);
  for (const auto& s : m.summaries) {
    EXPECT_EQ(s.same, s.cells);
    EXPECT_EQ(s.better + s.worse, 0);
    EXPECT_NEAR(*s.geo_mean, 1.0, 1e-12);
  }
  EXPECT_TRUE(m.setting_differences.empty());
  EXPECT_EQ(m.runs[2].letter, "C");
  EXPECT_EQ(m.runs[2].label, "seed-rtx3090-qwen3.5-4b");
}

TEST(CompareRender, AllFormatsAndWidths) {
  std::vector<RunResult> runs{test::seed_fixture(), test::variant_fixture(), test::seed_fixture()};
  CompareOptions options{{false, 100}, {"a", "b", "c"}};
  std::string term = render_compare(runs, ReportFormat::Term, options);
  for (size_t start = 0; start < term.size();) {
    size_t nl = term.find('\n', start);
    if (nl == std::string::npos) nl = term.size();
    std::string line = term.substr(start, nl - start);
    size_t width = 0;
    for (unsigned char ch : line) width += (ch & 0xC0) != 0x80;
    EXPECT_LE(width, 100u) << line;
    start = nl + 1;
  }
  std::string html = render_compare(runs, ReportFormat::Html, options);
  EXPECT_NE(html.find("id=\"ratios-B\""), std::string::npos);
  EXPECT_NE(html.find("id=\"ratios-C\""), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  std::string md = render_compare(runs, ReportFormat::Markdown, options);
  EXPECT_NE(md.find("| Context | Requests | total tok/s A |"), std::string::npos);
}

}  // namespace
}  // namespace sm::report
