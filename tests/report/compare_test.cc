#include "report/compare_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "report/golden.h"
#include "report/cell_format.h"
#include "report/report.h"

namespace sm::report {
namespace {

CompareValue value(double v, double within = 0, std::optional<double> between = std::nullopt) {
  CompareValue c;
  c.present = true;
  c.status = CellStatus::Valid;
  c.value = v;
  c.within = within;
  c.between = between;
  return c;
}

TEST(CompareNoise, TheBetweenRunFloorDecidesWhenCellsHaveNoNoiseOfTheirOwn) {
  // No interval, no passes: each run may land kBetweenRunNoiseFloor away, so h = floor · √2.
  const double h = kBetweenRunNoiseFloor * std::sqrt(2.0);
  CompareValue a = value(100);
  CompareValue b = value(100 * std::exp(0.99 * h));
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_NEAR(b.threshold, h, 1e-12);
  EXPECT_EQ(b.change, Change::Same);
  EXPECT_FALSE(b.significant);
  EXPECT_EQ(b.ratio_text, "≈");
  b = value(100 * std::exp(1.01 * h));
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_EQ(b.change, Change::Better);
  EXPECT_TRUE(b.significant);
  EXPECT_EQ(b.ratio_text, format_ratio(std::exp(1.01 * h)));
  b = value(100 * std::exp(-1.01 * h));
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_EQ(b.change, Change::Worse);
  // TTFT and prefill have their own floor; lower TTFT is better.
  const double hl = kLatencyNoiseFloor * std::sqrt(2.0);
  b = value(100 * std::exp(-0.99 * hl));
  judge(a, b, CompareMetric::DecodeTtft);
  EXPECT_EQ(b.change, Change::Same);
  b = value(100 * std::exp(-1.01 * hl));
  judge(a, b, CompareMetric::DecodeTtft);
  EXPECT_EQ(b.change, Change::Better);
  b = value(100 * std::exp(1.01 * hl));
  judge(a, b, CompareMetric::PromptTokS);
  EXPECT_EQ(b.change, Change::Better);
}

TEST(CompareNoise, TheRatiosIntervalCombinesBothCellsAndBothRuns) {
  // within 3% and 4%, passes 1% and 2%: h = √(9 + 16 + 1 + 4)% = √30 %.
  CompareValue a = value(100, 0.03, 0.01);
  CompareValue b = value(110, 0.04, 0.02);
  judge(a, b, CompareMetric::TotalTokS);
  const double h = std::sqrt(0.0030);
  EXPECT_NEAR(b.threshold, h, 1e-12);
  EXPECT_NEAR(*b.ratio_low, 1.1 * std::exp(-h), 1e-12);
  EXPECT_NEAR(*b.ratio_high, 1.1 * std::exp(h), 1e-12);
  EXPECT_TRUE(b.significant);  // 1.1 · e^−0.055 ≈ 1.04 > 1
  EXPECT_EQ(b.ratio_text, "1.10×");
}

TEST(CompareNoise, RepeatPassesStandInForTheFloor) {
  // 3% apart: within the floor's noise, but two runs whose passes agreed to 0.5% say it is real.
  CompareValue a = value(100, 0.005);
  CompareValue b = value(103, 0.005);
  judge(a, b, CompareMetric::TotalTokS);
  ASSERT_GT(kBetweenRunNoiseFloor, 0.03);
  EXPECT_EQ(b.change, Change::Same);
  a.between = 0.005;
  b.between = 0.005;
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_EQ(b.change, Change::Better);
  EXPECT_NEAR(b.threshold, 0.01, 1e-12);
  // Passes that spread widely make it noise again.
  b.between = 0.04;
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_EQ(b.change, Change::Same);
}

TEST(CompareNoise, ABusyHostsOneAndAHalfTimesIsWithinNoise) {
  // Three runs with the same settings on a busy host: 1K × 1 read 392 ± 193 in one and 1.64× that
  // in another. Their intervals hold 1: not a speed-up.
  CompareValue a = value(392, 193.0 / 392);
  CompareValue b = value(392 * 1.64, 0.30);
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_FALSE(b.significant);
  EXPECT_EQ(b.change, Change::Same);
  EXPECT_EQ(b.ratio_text, "≈");
  EXPECT_LT(*b.ratio_low, 1.0);
  EXPECT_GT(*b.ratio_high, 1.64);
  // The same ratio between two quiet cells is one.
  a = value(392, 0.01);
  b = value(392 * 1.64, 0.01);
  judge(a, b, CompareMetric::TotalTokS);
  EXPECT_TRUE(b.significant);
  EXPECT_EQ(b.ratio_text, "1.64×");
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
  // No cell of the seed has an interval: each side has the 6% between-run floor, so a ratio
  // counts beyond e^(√2 · 6%) ≈ 1.088.
  EXPECT_EQ(s.better, 6);   // context 0: +10%, but 0 × 4 (680.8 ± 40.0, its own 5.9%) is within noise
  EXPECT_EQ(s.worse, 0);    // 32K: −7%, within the floor's 8.5%
  EXPECT_EQ(s.same, 15);
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

RunResult one_cell_run(const std::string& id, double tok_s, std::vector<double> passes) {
  RunResult r;
  r.run_id = id;
  DecodeCell c;
  c.context = 1024;
  c.concurrency = 1;
  c.status = CellStatus::Valid;
  c.total_tok_s = tok_s;
  c.total_tok_s_ci = tok_s * 0.005;
  c.per_request_tok_s = tok_s;
  c.per_request_tok_s_ci = tok_s * 0.005;
  c.repeat_tok_s = std::move(passes);
  r.decode = {c};
  return r;
}

TEST(CompareModel, RepeatPassesComeFromTheCells) {
  // 3% faster; each run's window ±0.5%. Without passes the floor calls it noise; with passes that
  // agree to ±0.5% it is a speed-up.
  CompareModel m = build_compare_model({one_cell_run("a", 100, {}), one_cell_run("b", 103, {})}, {});
  const CompareValue& plain = m.decode.rows[0].values[0][1];
  EXPECT_NEAR(plain.within, 0.005, 1e-12);
  EXPECT_FALSE(plain.between.has_value());
  EXPECT_EQ(plain.change, Change::Same);
  m = build_compare_model({one_cell_run("a", 100, {99.5, 100, 100.5}), one_cell_run("b", 103, {102.5, 103, 103.5})}, {});
  const CompareValue& repeated = m.decode.rows[0].values[0][1];
  EXPECT_NEAR(*repeated.between, 0.5 / 103, 1e-12);
  EXPECT_NEAR(*m.decode.rows[0].values[0][0].between, 0.005, 1e-12);
  EXPECT_EQ(repeated.change, Change::Better);
  EXPECT_EQ(m.summaries[0].better, 1);
  // Per-request tok/s shares the passes' relative spread.
  EXPECT_NEAR(*m.decode.rows[0].values[1][1].between, 0.5 / 103, 1e-12);
}

TEST(CompareRender, ABusyHostsNoisyCellDoesNotReadAsASpeedUp) {
  // The case of issue 29: 1K × 1 read 392 ± 193 in A and 1.64 times that in B.
  RunResult a = one_cell_run("a", 392, {}), b = one_cell_run("b", 392 * 1.64, {});
  a.decode[0].total_tok_s_ci = 193;
  b.decode[0].total_tok_s_ci = 392 * 1.64 * 0.3;
  CompareOptions options{{false, 100}, {"a", "b"}};
  const std::string md = render_compare({a, b}, ReportFormat::Markdown, options);
  EXPECT_EQ(md.find("1.64× faster"), std::string::npos);
  EXPECT_NE(md.find("output tok/s ≈1.64× (geometric mean over 1 cell both ran) · 0 faster · 0 slower · 1 within noise"),
            std::string::npos)
      << md;
  // The cell's row: both values with their ±, and ≈ where the ratio would be.
  EXPECT_NE(md.find("| 1K | 1 | 392.0 ± 193.0 | 642.9 ± 192.9 | ≈ |"), std::string::npos) << md;
  // Quiet cells with the same ratio: a speed-up, shown as one.
  a.decode[0].total_tok_s_ci = 392 * 0.005;
  b.decode[0].total_tok_s_ci = 392 * 1.64 * 0.005;
  const std::string quiet = render_compare({a, b}, ReportFormat::Markdown, options);
  EXPECT_NE(quiet.find("output tok/s 1.64× (geometric mean over 1 cell both ran) · 1 faster"), std::string::npos) << quiet;
}

TEST(CompareJson, EveryCellHasItsRatioIntervalAndVerdict) {
  CompareOptions options{{false, 100}, {"seed", "variant"}};
  const RunResult seed = test::seed_fixture(), variant = test::variant_fixture();
  const nlohmann::json doc = nlohmann::json::parse(render_compare_json({seed, variant}, options));
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["baseline_run_id"], seed.run_id);
  EXPECT_EQ(doc["runs"][1]["run_id"], variant.run_id);
  EXPECT_EQ(doc["noise"]["between_run_floor_tok_s"], kBetweenRunNoiseFloor);
  ASSERT_EQ(doc["comparisons"].size(), 1u);
  const auto& c = doc["comparisons"][0];
  EXPECT_EQ(c["run_id"], variant.run_id);
  EXPECT_EQ(c["baseline_run_id"], seed.run_id);
  ASSERT_EQ(c["decode"].size(), 48u);
  EXPECT_EQ(c["prefill"].size(), 5u);
  int significant = 0, with_ratio = 0;
  for (const auto& cell : c["decode"]) {
    const auto& t = cell["total_tok_s"];
    ASSERT_TRUE(t.contains("significant"));
    if (t["ratio"].is_null()) {
      EXPECT_FALSE(t["significant"].get<bool>());
      continue;
    }
    ++with_ratio;
    const double ratio = t["ratio"], low = t["ratio_low"], high = t["ratio_high"];
    EXPECT_LT(low, ratio);
    EXPECT_GT(high, ratio);
    const bool excludes_one = low > 1 || high < 1;
    EXPECT_EQ(t["significant"].get<bool>(), excludes_one);
    significant += excludes_one;
    EXPECT_EQ(t["change"], excludes_one ? (ratio > 1 ? "better" : "worse") : "within_noise");
  }
  EXPECT_EQ(with_ratio, c["summary"]["cells"].get<int>());
  EXPECT_EQ(significant, c["summary"]["better"].get<int>() + c["summary"]["worse"].get<int>());
  // 0 × 1: 181.7 → 199.9.
  const auto& first = c["decode"][0];
  EXPECT_EQ(first["context"], 0);
  EXPECT_EQ(first["concurrency"], 1);
  EXPECT_DOUBLE_EQ(first["total_tok_s"]["baseline"].get<double>(), 181.7);
  EXPECT_DOUBLE_EQ(first["total_tok_s"]["value"].get<double>(), 199.9);
  EXPECT_EQ(first["ttft_ms"]["higher_is_better"], false);
  // A cell only the baseline ran: its status, no ratio.
  bool absent = false;
  for (const auto& cell : c["decode"]) absent |= cell["total_tok_s"]["status"] == "pending";
  EXPECT_TRUE(absent);
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
  EXPECT_NE(md.find("| Context | Requests | output tok/s (all requests) A |"), std::string::npos);
}

}  // namespace
}  // namespace sm::report
