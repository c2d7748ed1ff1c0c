// The HTML report without a browser: sections, numbers, escaping, self-containment.
// tests/browser/ opens the same page in headless Chromium.
#include <gtest/gtest.h>

#include "report/golden.h"
#include "report/html_escape.h"
#include "report/report.h"

namespace sm {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportHtml, HasEverySectionOfTheSeedPageAndMore) {
  std::string html = render_report(test::seed_fixture(), ReportFormat::Html, {});
  for (const char* id : {"title", "hardware", "engine", "run", "launch-command", "prefill", "prefill-chart",
                         "decode", "decode-matrix", "total-chart", "per-request-chart", "per-request-matrix",
                         "capacity", "capacity-matrix", "measurements", "checks", "definitions", "token-counts"})
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  for (const char* text : {"Qwen3.5-4B-AWQ-4bit", "RTX 3090 24GB", "vllm · 0.32.0 · AWQ 4-bit",
                           "6 contexts (0–248K) × 8 concurrency levels (1–128)", "AMD Ryzen 9 7900X (12C)",
                           "vllm/vllm-openai:v0.32.0-x86_64", "10.6K", "9,919", "24,295 ms TTFT", "181.7",
                           "24 ms TTFT", "3,263.4", "Over capacity", "9,919.0", "97,856", "30.0 s",
                           "prefers-color-scheme: dark", "@media print"})
    EXPECT_NE(html.find(text), std::string::npos) << text;
  EXPECT_EQ(count(html, "<table"), 5u);  // prefill, the two decode heatmaps, users at a speed, all measurements
  EXPECT_EQ(count(html, "<svg"), 4u);  // prefill, total, per request, Pareto
}

TEST(ReportHtml, SelfContained) {
  std::string html = render_report(test::variant_fixture(), ReportFormat::Html, {});
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  // The only URL is the SVG namespace name, which is never fetched.
  EXPECT_EQ(count(html, "http"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
}

TEST(ReportHtml, WarningsAndStatuses) {
  std::string html = render_report(test::variant_fixture(), ReportFormat::Html, {});
  EXPECT_NE(html.find("id=\"warnings\""), std::string::npos);
  EXPECT_NE(html.find("HTTP 500: CUDA out of memory"), std::string::npos);
  EXPECT_NE(html.find("Client near its ceiling"), std::string::npos);
  EXPECT_NE(html.find("effective concurrency below requested"), std::string::npos);
  EXPECT_NE(html.find("prompt length missed"), std::string::npos);
  EXPECT_NE(html.find("output length not forced"), std::string::npos);
  EXPECT_NE(html.find(">Pending<"), std::string::npos);
  EXPECT_NE(html.find(">Error<"), std::string::npos);
  EXPECT_NE(html.find("Interrupted"), std::string::npos);
}

TEST(ReportHtml, ModelNameWithMarkupIsText) {
  RunResult r = test::seed_fixture();
  r.engine.model_path = "evil/<script>alert(1)</script>";
  r.engine.model = "<img src=x onerror=alert(2)>";
  r.launch_command = "echo '</pre><script>alert(3)</script>'";
  r.notes = "\"quoted\" & <b>bold</b>";
  std::string html = render_report(r, ReportFormat::Html, {});
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  std::string md = render_report(r, ReportFormat::Markdown, {});
  EXPECT_EQ(md.find("<script>alert(1)"), std::string::npos);
  EXPECT_EQ(md.find("<img"), std::string::npos);
  EXPECT_NE(md.find("&lt;script&gt;alert(1)"), std::string::npos);
}

TEST(ReportHtml, Escape) {
  EXPECT_EQ(report::html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
}

TEST(ReportHtml, EmptyResultStillRenders) {
  RunResult r;
  for (auto format : {ReportFormat::Html, ReportFormat::Markdown, ReportFormat::Term, ReportFormat::Csv})
    EXPECT_FALSE(render_report(r, format, {}).empty());
  std::string html = render_report(r, ReportFormat::Html, {});
  EXPECT_NE(html.find("Unknown model on unknown hardware"), std::string::npos);
}

}  // namespace
}  // namespace sm
