// Pages that fit people's screens (issue 15 part 4), in the markup: run tables with the headline
// numbers first, long names cut with the full name in a title, card labels; the API page's
// Markdown and response fields from the OpenAPI document; the Benchmarks page; compare's
// permalink. (Chromium measures the layouts themselves: browser_layout_test.sh.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "site/benchmarks_page.h"
#include "site/markdown.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

TEST(Markdown, RendersItsSubsetAndEscapesTheRest) {
  EXPECT_EQ(markdown_html("Upload with `speedmatrix run`, **then** *look*.\n\n- one\n- two [docs](/api)"),
            "<p>Upload with <code>speedmatrix run</code>, <strong>then</strong> <em>look</em>.</p>\n"
            "<ul>\n<li>one</li>\n<li>two <a href=\"/api\">docs</a></li>\n</ul>\n");
  EXPECT_EQ(markdown_inline_html("<script>x</script> & `<b>`"),
            "&lt;script&gt;x&lt;/script&gt; &amp; <code>&lt;b&gt;</code>");
  // Only http(s), site-relative and fragment links become links.
  EXPECT_EQ(markdown_inline_html("[x](javascript:alert(1))"), "[x](javascript:alert(1))");
  EXPECT_EQ(markdown_inline_html("[x](//evil.example)"), "[x](//evil.example)");
  EXPECT_EQ(markdown_inline_html("[x](https://a.example/p?q=1&r=2)"), "<a href=\"https://a.example/p?q=1&amp;r=2\">x</a>");
  EXPECT_EQ(markdown_inline_html("a * b ** c `"), "a * b ** c `");  // unclosed marks are text
}

TEST(BenchmarkKinds, FromTheCanonicalJson) {
  EXPECT_EQ(benchmark_kind(R"({"decode":[],"settings":{"decode_test":"fixed_duration"}})"), "matrix");
  EXPECT_EQ(benchmark_kind(R"({"decode":[],"settings":{"decode_test":"burst","requests_per_cell":8}})"), "burst");
  EXPECT_EQ(benchmark_kind(R"({"decode":[],"sweep":{"arrivals":"poisson","points":[]}})"), "sweep");
  // A note cannot pass for either: inside a string a quote is \".
  EXPECT_EQ(benchmark_kind(R"({"notes":"\"sweep\":{ \"decode_test\":\"burst\""})"), "matrix");
}

class SiteLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    auto t = generate_upload_token();
    ASSERT_TRUE(t);
    secret_ = t->secret;
    ASSERT_TRUE(store_->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
    SiteConfig config;
    config.upload_rate_per_min = 0;
    config.public_url = "https://results.example";
    config.log_line = [](const std::string&) {};
    auto site = Site::create(*store_, config, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  void upload(const RunResult& r) {
    SiteRequest req;
    req.method = HttpMethod::Post;
    req.path = "/api/v1/runs";
    req.authorization = "Bearer " + secret_;
    req.body = to_json(r).dump();
    SiteResponse resp = site_->handle(req);
    ASSERT_EQ(resp.status, 201) << resp.body;
  }

  SiteResponse get(const std::string& target) {
    SiteRequest r;
    size_t q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = target.substr(q + 1);
    return site_->handle(r);
  }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::string secret_;
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
};

TEST_F(SiteLayoutTest, RunTablesPutTheHeadlineNumbersFirstAndCutLongNamesWithTheFullNameOnHover) {
  const std::string long_model = std::string(100, 'M') + "-end";
  upload(test::site_result("long", long_model));
  const std::string page = get("/runs").body;
  const size_t table = page.find("id=\"runs-table\"");  // after the phones' sort bar
  const size_t model = page.find(">Model</th>", table);
  const size_t single = page.find("Single-stream decode", table);
  const size_t hardware = page.find(">Hardware</th>");
  ASSERT_NE(model, std::string::npos);
  ASSERT_NE(hardware, std::string::npos);
  EXPECT_LT(model, single);
  EXPECT_LT(single, hardware);  // the numbers before what the run ran on
  // The whole name in the title (the hover), the cell cut by CSS; each cell labelled for the card layout.
  EXPECT_NE(page.find("<span class=\"cut\" title=\"" + long_model + "\"><a href=\"/runs/long\">" + long_model + "</a>"),
            std::string::npos);
  EXPECT_NE(page.find("<table class=\"data board cards\" id=\"runs-table\">"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"metric\" data-label=\"Single-stream decode\">180.0</td>"), std::string::npos);
  EXPECT_NE(page.find("data-label=\"Hardware\"><span class=\"cut\" title=\"RTX 3090"), std::string::npos);
  // The style sheet: ellipsis, and cards below 600 px.
  EXPECT_NE(page.find("text-overflow: ellipsis"), std::string::npos);
  EXPECT_NE(page.find("@media (max-width: 600px)"), std::string::npos);
  EXPECT_NE(page.find("content: attr(data-label)"), std::string::npos);
  EXPECT_EQ(page.find("<div class=\"scroll\">\n<table class=\"data board"), std::string::npos);  // no sideways scroller
}

TEST_F(SiteLayoutTest, TheApiPageRendersItsMarkdownAndListsTheResponseFields) {
  const SiteResponse r = get("/api");
  ASSERT_EQ(r.status, 200);
  // info.description's `speedmatrix run` is code, not backticks.
  EXPECT_NE(r.body.find("<code>speedmatrix run</code>"), std::string::npos);
  EXPECT_EQ(r.body.find("`speedmatrix run`"), std::string::npos);
  // GET /api/v1/runs answers a RunPage: its fields, and those of the RunSummary items, from components.schemas.
  const size_t runs = r.body.find("id=\"fields-get-/api/v1/runs-200\"");
  ASSERT_NE(runs, std::string::npos);
  const size_t end = r.body.find("</details>", runs);
  const std::string fields = r.body.substr(runs, end - runs);
  for (const char* f : {"<code>runs</code>", "<code>total</code>", "<code>next</code>", "<code>runs[].run_id</code>",
                        "<code>runs[].best_total_tok_s</code>", "<code>runs[].ranked</code>"})
    EXPECT_NE(fields.find(f), std::string::npos) << f;
  EXPECT_NE(fields.find("array of RunSummary"), std::string::npos);
  EXPECT_NE(fields.find("number | null"), std::string::npos);
  // The upload's answer too.
  EXPECT_NE(r.body.find("id=\"fields-post-/api/v1/runs-201\""), std::string::npos);
}

TEST_F(SiteLayoutTest, TheBenchmarksPageExplainsEachKindWithItsLatestRuns) {
  RunResult burst = test::site_result("burst-run", "Burst-Model");
  burst.settings.decode_test = "burst";
  burst.settings.requests_per_cell = 16;
  upload(burst);
  upload(test::site_result("matrix-run", "Matrix-Model"));
  const SiteResponse r = get("/benchmarks");
  ASSERT_EQ(r.status, 200);
  const size_t matrix = r.body.find("id=\"benchmark-matrix\"");
  const size_t bursts = r.body.find("id=\"benchmark-burst\"");
  const size_t sweeps = r.body.find("id=\"benchmark-sweep\"");
  ASSERT_TRUE(matrix != std::string::npos && bursts != std::string::npos && sweeps != std::string::npos);
  const std::string matrix_section = r.body.substr(matrix, bursts - matrix);
  const std::string burst_section = r.body.substr(bursts, sweeps - bursts);
  const std::string sweep_section = r.body.substr(sweeps);
  EXPECT_NE(matrix_section.find("data-run-id=\"matrix-run\""), std::string::npos);
  EXPECT_EQ(matrix_section.find("data-run-id=\"burst-run\""), std::string::npos);
  EXPECT_NE(burst_section.find("data-run-id=\"burst-run\""), std::string::npos);
  EXPECT_NE(burst_section.find("<code>speedmatrix run --requests N</code>"), std::string::npos);
  EXPECT_NE(sweep_section.find("None among the newest runs"), std::string::npos);
  EXPECT_NE(sweep_section.find("<code>speedmatrix sweep</code>"), std::string::npos);
  EXPECT_NE(r.body.find("href=\"/benchmarks\" class=\"active\""), std::string::npos);
}

TEST_F(SiteLayoutTest, CompareViewsHaveAPermalinkThatReproducesThem) {
  upload(test::site_result("run-a", "Model-A"));
  upload(test::site_result("run.b", "Model-B"));
  const SiteResponse r = get("/compare?run=run.b&run=run-a&lang=ja");
  ASSERT_EQ(r.status, 200);
  const std::string link = "https://results.example/compare?run=run.b&amp;run=run-a";
  EXPECT_NE(r.body.find("id=\"permalink\">この比較へのパーマリンク: <a href=\"" + link + "\" rel=\"bookmark\">" + link + "</a>"),
            std::string::npos)
      << r.body.substr(0, 3000);
  // The link, followed, is the same comparison.
  const SiteResponse again = get("/compare?run=run.b&run=run-a");
  EXPECT_EQ(again.status, 200);
  EXPECT_NE(again.body.find("<section id=\"decode\">"), std::string::npos);
}

// Phones sort from a bar over the cards (the column headers hold the sort links and are hidden
// below 600 px): every order, the current one marked (issue 30 part 9; the browser test taps it).
TEST_F(SiteLayoutTest, ASortBarCarriesEverySortLinkForPhones) {
  upload(test::site_result("a"));
  const std::string page = get("/?sort=best_total").body;
  const size_t bar = page.find("<nav class=\"sort-bar\"");
  ASSERT_NE(bar, std::string::npos);
  const std::string links = page.substr(bar, page.find("</nav>", bar) - bar);
  for (const char* order : {"single_stream", "best_total", "prefill_32k", "tokens_per_joule", "newest"})
    EXPECT_NE(links.find(std::string("sort=") + order), std::string::npos) << order;
  EXPECT_NE(links.find("sort=best_total\" class=\"sorted\" aria-current=\"true\""), std::string::npos) << links;
  EXPECT_LT(bar, page.find("id=\"runs-table\""));
}

}  // namespace
}  // namespace sm::site
