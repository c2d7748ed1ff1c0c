// Noise that shows (docs/reports.md, "Noise"): one definition of a cell's ±, every printer showing
// it where it is wider than 2%, the HTML shading noisy cells, and the names and notes that say
// what a figure means next to other tools (warm-prefix TTFT, output tok/s, llama.cpp's slots).
#include "report/cell_noise.h"

#include <gtest/gtest.h>

#include "report/report.h"
#include "report/report_headline.h"
#include "report/report_model.h"

namespace sm::report {
namespace {

DecodeCell cell(int64_t context, int64_t concurrency, double tok_s, std::optional<double> ci) {
  DecodeCell c;
  c.context = context;
  c.concurrency = concurrency;
  c.status = CellStatus::Valid;
  c.total_tok_s = tok_s;
  c.total_tok_s_ci = ci;
  c.per_request_tok_s = tok_s / static_cast<double>(concurrency);
  if (ci) c.per_request_tok_s_ci = *ci / static_cast<double>(concurrency);
  c.ttft_ms = 30;
  return c;
}

// A run with one noisy cell (1K × 1: 392 ± 193, the busy host's figure) and one quiet one.
RunResult noisy_run(const std::string& engine_kind = "vllm") {
  RunResult r;
  r.engine.kind = engine_kind;
  r.settings.contexts = {1024};
  r.settings.concurrency = {1, 2};
  r.decode = {cell(1024, 1, 392.0, 193.0), cell(1024, 2, 700.0, 7.0)};
  PrefillRow p;
  p.context = 1024;
  p.status = CellStatus::Valid;
  p.prompt_tok_s = 1145;
  p.ttft_ms = 894;
  r.prefill = {p};
  return r;
}

TEST(CellNoise, HalfRangeNeedsTwoPasses) {
  EXPECT_FALSE(half_range({}).has_value());
  EXPECT_FALSE(half_range({5.0}).has_value());
  EXPECT_DOUBLE_EQ(*half_range({3.0, 7.0, 5.0}), 2.0);
}

TEST(CellNoise, TheWiderOfTheWindowAndThePasses) {
  DecodeCell c = cell(0, 1, 400.0, 4.0);  // within: 1%
  CellNoise n = decode_noise(c);
  EXPECT_DOUBLE_EQ(*n.within, 0.01);
  EXPECT_FALSE(n.between.has_value());
  EXPECT_FALSE(n.shown());
  c.repeat_tok_s = {380.0, 400.0, 420.0};  // passes ±20 of 400: 5%
  n = decode_noise(c);
  EXPECT_DOUBLE_EQ(*n.between, 0.05);
  EXPECT_DOUBLE_EQ(*n.relative(), 0.05);
  EXPECT_TRUE(n.shown());
  EXPECT_EQ(format_tok_s_noise(c.total_tok_s, n), "400.0 ± 20.0");
  c.repeat_tok_s = {400.0};  // one pass: no spread
  EXPECT_FALSE(decode_noise(c).between.has_value());
}

TEST(CellNoise, TwoPercentIsTheLine) {
  DecodeCell c = cell(0, 1, 100.0, 2.0);  // exactly 2%: stays as it is
  EXPECT_FALSE(decode_noise(c).shown());
  EXPECT_EQ(format_tok_s_noise(c.total_tok_s, decode_noise(c)), "100.0");
  c.total_tok_s_ci = 2.1;
  EXPECT_TRUE(decode_noise(c).shown());
  EXPECT_EQ(format_tok_s_noise(c.total_tok_s, decode_noise(c)), "100.0 ± 2.1");
  // The All-measurements table shows every ± it has.
  c.total_tok_s_ci = 1.0;
  EXPECT_EQ(format_tok_s_noise_always(c.total_tok_s, decode_noise(c)), "100.0 ± 1.0");
}

TEST(CellNoise, MatricesCarryTheirCellsNoise) {
  ReportModel m = build_report_model(noisy_run());
  ASSERT_EQ(m.decode_total.cells.size(), 1u);
  EXPECT_EQ(m.decode_total.cells[0][0].value, "392.0 ± 193.0");
  EXPECT_TRUE(m.decode_total.cells[0][0].noisy);
  EXPECT_EQ(m.decode_total.cells[0][1].value, "700.0");  // 1%: as it was
  EXPECT_FALSE(m.decode_total.cells[0][1].noisy);
  // Per request: the same relative noise, of its own figure.
  EXPECT_EQ(m.decode_per_request.cells[0][0].value, "392.0 ± 193.0");
  EXPECT_EQ(m.decode_per_request.cells[0][1].value, "350.0");
  bool note = false;
  for (const auto& n : m.decode_notes) note |= n.starts_with("± marks a cell whose noise is wider than 2%");
  EXPECT_TRUE(note);
  EXPECT_EQ(m.headline[0].value, "700.0 tok/s");  // best: the quiet cell
  EXPECT_EQ(m.headline[1].value, "392.0 ± 193.0 tok/s");  // single stream: the noisy one
}

TEST(CellNoise, RepeatPassesWidenTheCellsPlusMinus) {
  RunResult r = noisy_run();
  r.decode[1].repeat_tok_s = {600.0, 700.0, 760.0};  // window ±1%, passes ±80
  ReportModel m = build_report_model(r);
  EXPECT_EQ(m.decode_total.cells[0][1].value, "700.0 ± 80.0");
  EXPECT_EQ(m.headline[0].value, "700.0 ± 80.0 tok/s");
}

TEST(CellNoise, EveryPrinterShowsIt) {
  const RunResult r = noisy_run();
  const std::string term = render_report(r, ReportFormat::Term, {false, 100});
  const std::string md = render_report(r, ReportFormat::Markdown, {});
  const std::string html = render_report(r, ReportFormat::Html, {});
  for (const std::string* text : {&term, &md, &html}) EXPECT_NE(text->find("392.0 ± 193.0"), std::string::npos);
  // Headline strip, then the heatmap's shaded cell with the legend saying what the shading means.
  EXPECT_NE(html.find("<strong>392.0 ± 193.0 tok/s</strong>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"noisy\""), std::string::npos);
  EXPECT_NE(html.find("<span class=\"noisy\"></span><span>noise wider than 2% (± shown)</span>"), std::string::npos);
  EXPECT_NE(html.find("table.heatmap td.noisy"), std::string::npos);
  // A quiet run has neither the shading nor its legend.
  RunResult quiet = noisy_run();
  quiet.decode[0].total_tok_s_ci = 3.0;
  const std::string quiet_html = render_report(quiet, ReportFormat::Html, {});
  EXPECT_EQ(quiet_html.find("<td class=\"noisy\""), std::string::npos);
  EXPECT_EQ(quiet_html.find("noise wider than"), std::string::npos);
}

TEST(ReportNames, OutputTokSAndWarmPrefixTtft) {
  const RunResult r = noisy_run();
  ReportModel m = build_report_model(r);
  EXPECT_TRUE(m.decode_total.caption.starts_with("output tok/s (all requests)"));
  EXPECT_EQ(m.decode_total.detail_name, "TTFT (warm prefix)");
  EXPECT_EQ(m.measurements.header[4], "Output tok/s (all requests)");
  EXPECT_EQ(m.measurements.header[6], "TTFT (decode: warm prefix)");
  bool defined = false;
  for (const auto& d : m.definitions)
    if (d.term == "Output tok/s (all requests)") defined = d.meaning.find("also counts prompt tokens") != std::string::npos;
  EXPECT_TRUE(defined);
}

TEST(ReportNames, LlamaCppsPromptCacheIsPerSlot) {
  auto note_of = [](const RunResult& r) {
    for (const auto& n : build_report_model(r).decode_notes)
      if (n.starts_with("TTFT is measured")) return n;
    return std::string();
  };
  const std::string vllm = note_of(noisy_run("vllm"));
  EXPECT_EQ(vllm, "TTFT is measured after the benchmark warms the server's prompt cache, so it mostly excludes prefill.");
  const std::string llama = note_of(noisy_run("llamacpp"));
  EXPECT_NE(llama.find("per slot"), std::string::npos) << llama;
  EXPECT_NE(llama.find("includes prefill"), std::string::npos) << llama;
  EXPECT_EQ(llama.find("mostly excludes prefill"), std::string::npos) << llama;
}

TEST(ReportNames, TerminalShowsTheColdTtftBesideTheWarmOnes) {
  ReportModel m = build_report_model(noisy_run());
  ASSERT_EQ(m.decode_total.cold_ttft.size(), 1u);
  EXPECT_EQ(m.decode_total.cold_ttft[0], "894 ms");
  const std::string term = render_report(noisy_run(), ReportFormat::Term, {false, 100});
  const size_t matrix = term.find("cold TTFT");
  ASSERT_NE(matrix, std::string::npos);
  // On the TTFT line of the 1K row: the cold TTFT, then each cell's warm one.
  const size_t line = term.find("894 ms", matrix);
  ASSERT_NE(line, std::string::npos);
  const size_t end = term.find('\n', line);
  const size_t warm = term.find("30 ms", line);
  EXPECT_LT(warm, end);
  // Without a prefill row at a context, that row's cold TTFT is a dash; without any, no column.
  RunResult none = noisy_run();
  none.prefill.clear();
  EXPECT_EQ(render_report(none, ReportFormat::Term, {false, 100}).find("cold TTFT"), std::string::npos);
}

}  // namespace
}  // namespace sm::report
