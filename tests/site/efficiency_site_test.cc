// Telemetry on the results site: the leaderboard's efficiency ranking (API and page), the
// best-efficiency column of the hardware and model groups, and the run page's tokens per joule
// and throttle verdicts (and what it says of a client's GPUs or of no telemetry).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/units.h"
#include "report/cell_format.h"
#include "result/result_json.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

using nlohmann::json;

RunResult with_telemetry(const std::string& id, double base_tokens_per_joule, bool client_side_only = false,
                         const std::string& gpu = "NVIDIA GeForce RTX 3090", const std::string& model = "M1") {
  RunResult r = test::site_result(id, model, gpu);
  test::add_gpu_telemetry(r, base_tokens_per_joule, client_side_only);
  return r;
}

class EfficiencySiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    auto t = generate_upload_token();
    ASSERT_TRUE(t);
    token_ = t->secret;
    ASSERT_TRUE(store_->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
    auto site = Site::create(*store_, {.upload_rate_per_min = 0}, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  SiteResponse get(const std::string& target) {
    SiteRequest r;
    r.method = HttpMethod::Get;
    size_t q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = target.substr(q + 1);
    r.host = "results.test:8080";
    r.client = "127.0.0.1";
    return site_->handle(r);
  }

  SiteResponse upload_json(const json& result) {
    SiteRequest r;
    r.method = HttpMethod::Post;
    r.path = "/api/v1/runs";
    r.body = result.dump();
    r.client = "127.0.0.1";
    r.authorization = "Bearer " + token_;
    return site_->handle(r);
  }

  int upload(const RunResult& result) { return upload_json(to_json(result)).status; }

  // Four runs: two ranked by efficiency, one without GPU telemetry, one with the client's GPUs
  // only (ten times the figure: it must not come first).
  void upload_four() {
    ASSERT_EQ(upload(with_telemetry("low", 1.0)), 201);
    ASSERT_EQ(upload(with_telemetry("high", 2.0, false, "NVIDIA H100", "M2")), 201);
    ASSERT_EQ(upload(test::site_result("none", "M1", "NVIDIA GeForce RTX 3090", 900)), 201);
    ASSERT_EQ(upload(with_telemetry("client", 10.0, true)), 201);
  }

  static std::vector<std::string> ids(const json& page) {
    std::vector<std::string> out;
    for (const auto& r : page["runs"]) out.push_back(r["run_id"]);
    return out;
  }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
  std::string token_;
};

TEST_F(EfficiencySiteTest, ApiLeaderboardRanksByTokensPerJouleOnlyRunsWithTheServersFigure) {
  upload_four();
  json board = json::parse(get("/api/v1/leaderboard?sort=tokens_per_joule").body);
  EXPECT_EQ(board["sort"], "tokens_per_joule");
  EXPECT_EQ(ids(board), (std::vector<std::string>{"high", "low"}));
  EXPECT_EQ(board["total"], 2);
  EXPECT_EQ(board["runs"][0]["rank"], 1);
  EXPECT_DOUBLE_EQ(board["runs"][0]["best_tokens_per_joule"].get<double>(), 2.0 * 1.7);
  EXPECT_EQ(board["runs"][0]["best_tokens_per_joule_context"], 16384);
  EXPECT_EQ(board["runs"][0]["best_tokens_per_joule_concurrency"], 2);
  EXPECT_EQ(board["runs"][0]["gpu_telemetry"], "server");
  EXPECT_EQ(board["runs"][0]["throttle_worst"], "ok");
  EXPECT_EQ(board["runs"][0]["throttled_cells"], 0);
  json first = json::parse(get("/api/v1/leaderboard?sort=tokens_per_joule&limit=1").body);
  // The next page is a keyset cursor after this page's run, in this order.
  ASSERT_TRUE(first["next"].is_string());
  EXPECT_TRUE(first["next"].get<std::string>().starts_with("/api/v1/leaderboard?sort=tokens_per_joule&limit=1&cursor=a4~1~"))
      << first["next"];
  json second = json::parse(get(first["next"].get<std::string>()).body);
  ASSERT_EQ(second["runs"].size(), 1u);
  EXPECT_EQ(second["runs"][0]["rank"], 2);
  EXPECT_NE(second["runs"][0]["run_id"], first["runs"][0]["run_id"]);

  // The other orders still rank every run on known hardware.
  EXPECT_EQ(json::parse(get("/api/v1/leaderboard?sort=single_stream").body)["total"], 4);
  // A listing is no ranking: every run, those without the figure last.
  // (The last two are in upload order, which the wall clock may not tell apart: either way.)
  json runs = json::parse(get("/api/v1/runs?sort=tokens_per_joule").body);
  std::vector<std::string> listed = ids(runs);
  ASSERT_EQ(listed.size(), 4u);
  EXPECT_EQ(listed[0], "high");
  EXPECT_EQ(listed[1], "low");
  for (size_t i : {2, 3}) {
    const json& row = runs["runs"][i];
    EXPECT_TRUE(row["best_tokens_per_joule"].is_null());
    EXPECT_TRUE(row["throttled_cells"].is_null());
    EXPECT_EQ(row["gpu_telemetry"], row["run_id"] == "client" ? "client_side_only" : "") << row["run_id"];
  }

  SiteResponse bad = get("/api/v1/leaderboard?sort=efficiency");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("tokens_per_joule"), std::string::npos) << bad.body;

  json hw = json::parse(get("/api/v1/hardware").body);
  ASSERT_EQ(hw["hardware"].size(), 2u);
  EXPECT_DOUBLE_EQ(hw["hardware"][0]["best_tokens_per_joule"].get<double>(), 2.0 * 1.7);  // H100
  EXPECT_DOUBLE_EQ(hw["hardware"][1]["best_tokens_per_joule"].get<double>(), 1.0 * 1.7);  // not the client's 17
  json models = json::parse(get("/api/v1/models").body);
  EXPECT_DOUBLE_EQ(models["models"][0]["best_tokens_per_joule"].get<double>(), 1.0 * 1.7);  // M1
}

TEST_F(EfficiencySiteTest, LeaderboardPageSortsByEfficiencyAndSaysWhoIsNotRanked) {
  upload_four();
  SiteResponse page = get("/?sort=tokens_per_joule");
  ASSERT_EQ(page.status, 200);
  const std::string& b = page.body;
  EXPECT_NE(b.find("href=\"/?sort=tokens_per_joule\" class=\"sorted\">Efficiency</a>"), std::string::npos);
  ASSERT_NE(b.find("data-run-id=\"high\""), std::string::npos);
  EXPECT_LT(b.find("data-run-id=\"high\""), b.find("data-run-id=\"low\""));
  EXPECT_EQ(b.find("data-run-id=\"none\""), std::string::npos);
  EXPECT_EQ(b.find("data-run-id=\"client\""), std::string::npos);
  EXPECT_NE(b.find("id=\"efficiency-unranked\">2 runs without a tokens-per-joule figure"), std::string::npos);
  EXPECT_NE(b.find("3.40<span class=\"sub\">16K × 2</span>"), std::string::npos);  // 2.0 × 1.7 at 16K × 2
  EXPECT_NE(b.find("<input type=\"hidden\" name=\"sort\" value=\"tokens_per_joule\">"), std::string::npos);

  // Every order offers the efficiency sort; the default one lists all four and shows why two have no figure.
  SiteResponse board = get("/");
  EXPECT_NE(board.body.find("href=\"/?sort=tokens_per_joule\">Efficiency</a>"), std::string::npos);
  EXPECT_NE(board.body.find("data-run-id=\"none\""), std::string::npos);
  EXPECT_NE(board.body.find("—<span class=\"sub\">client GPU only</span>"), std::string::npos);
  EXPECT_EQ(board.body.find("id=\"efficiency-unranked\""), std::string::npos);

  // Filtered to runs that have none: an empty ranking that says why.
  SiteResponse empty = get("/?sort=tokens_per_joule&model=M1&gpu=RTX%203090%2024GB&kind=measured&engine=vllm");
  EXPECT_NE(empty.body.find("data-run-id=\"low\""), std::string::npos);
  SiteResponse nothing = get("/?sort=tokens_per_joule&gpu=RTX%203090%2024GB&engine=sglang");
  EXPECT_NE(nothing.body.find("No run matches these filters."), std::string::npos);

  // Groups: a best-efficiency column; a group's own list sorts by it too.
  SiteResponse hardware = get("/hardware");
  EXPECT_NE(hardware.body.find("Best efficiency<span class=\"sub\">tokens per joule</span>"), std::string::npos);
  EXPECT_NE(hardware.body.find("<td class=\"metric\" data-label=\"Best efficiency\">3.40</td>"), std::string::npos);
  SiteResponse group = get("/hardware?gpu=RTX%203090%2024GB&sort=tokens_per_joule");
  EXPECT_LT(group.body.find("data-run-id=\"low\""), group.body.find("data-run-id=\"none\""));
  EXPECT_NE(get("/models").body.find("<td class=\"metric\" data-label=\"Best efficiency\">1.70</td>"), std::string::npos);
}

TEST_F(EfficiencySiteTest, RunPageShowsTokensPerJouleAndNamesEveryThrottledCell) {
  RunResult r = with_telemetry("hot", 1.6);
  r.decode[1].telemetry.throttle = "power_capped";
  r.decode[1].telemetry.gpu_sm_clock_mhz = 1410.0;
  r.prefill[0].telemetry.throttle = "thermal";
  ASSERT_EQ(upload(r), 201);
  SiteResponse page = get("/runs/hot");
  ASSERT_EQ(page.status, 200);
  const std::string& b = page.body;
  EXPECT_NE(b.find("id=\"run-telemetry\""), std::string::npos);
  const CellTelemetry& best = r.decode[3].telemetry;  // 16K × 2, power and energy as the fixture made them
  const std::string power = report::format_power_w(best.gpu_power_w);
  const std::string energy = format_whole(*best.gpu_energy_j) + " J";
  EXPECT_NE(b.find("<strong>Best efficiency: 2.72 tokens per joule</strong> at 16K × 2 (" + power + ", 1,695 MHz)"),
            std::string::npos)
      << b.substr(b.find("Best efficiency"), 120);
  EXPECT_NE(b.find("throttled in 2 of 5</strong>"), std::string::npos);
  EXPECT_NE(b.find("0 × 2 (Power capped), prefill 32K (Thermal)"), std::string::npos);
  // Per cell: tokens per joule (one style for the column: the prefill rows reach 81, so one
  // decimal for every row), power, energy, clock, temperature, verdict.
  EXPECT_NE(b.find("id=\"telemetry-table\""), std::string::npos);
  EXPECT_NE(b.find("<tr class=\"best\"><td class=\"l\">16K × 2</td><td class=\"l\">Valid</td><td>2.7</td><td>" + power +
                   "</td><td>" + energy + "</td><td>1,695 MHz</td><td>71 °C</td>"),
            std::string::npos);
  EXPECT_NE(b.find("<td>1,410 MHz</td><td>71 °C</td><td class=\"l throttled\" data-throttle=\"power_capped\">Power capped</td>"),
            std::string::npos);
  EXPECT_NE(b.find("<td class=\"l\">prefill 32K</td><td class=\"l\">Valid</td><td>48.0</td><td>183 W</td>"), std::string::npos);
  EXPECT_NE(b.find("GPU 0 NVIDIA GeForce RTX 3090 (power limit 350 W, SM clock max 1,950 MHz)"), std::string::npos);
  EXPECT_NE(b.find("id=\"decode-matrix\""), std::string::npos);  // the report is still there, below

  // The run list shows the worst verdict and how many cells.
  SiteResponse runs = get("/runs");
  EXPECT_NE(runs.body.find("data-throttle=\"thermal\">Thermal<span class=\"sub\">2 cells</span>"), std::string::npos);

  ASSERT_EQ(upload(with_telemetry("cool", 1.0)), 201);
  SiteResponse cool = get("/runs/cool");
  EXPECT_NE(cool.body.find("Clocks: <strong>OK</strong> in all 5 valid cells and prefill rows"), std::string::npos);
  EXPECT_EQ(cool.body.find("class=\"warn-box\" id=\"throttle-verdict\""), std::string::npos);  // no throttled-cells box
}

TEST_F(EfficiencySiteTest, RunPageSaysWhenTheReadingsAreTheClientsOrAbsent) {
  RunResult client = with_telemetry("client", 10.0, true);
  client.telemetry->gpus[0].name = "<script>alert(1)</script>";
  ASSERT_EQ(upload(client), 201);
  SiteResponse page = get("/runs/client");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("id=\"telemetry-client-side\""), std::string::npos);
  EXPECT_NE(page.body.find("not of the server (the server ran on another machine)"), std::string::npos);
  EXPECT_EQ(page.body.find("id=\"best-efficiency\""), std::string::npos);
  EXPECT_EQ(page.body.find("<th>Tokens per joule"), std::string::npos);  // no figure, not even per cell
  EXPECT_NE(page.body.find("The client&#39;s GPUs: <strong>OK</strong>"), std::string::npos);
  EXPECT_NE(page.body.find("<td>18 W</td>"), std::string::npos);  // its power and clocks, labelled the client's
  EXPECT_EQ(page.body.find("<script"), std::string::npos);
  EXPECT_NE(page.body.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);

  // What `run` records for a server on another machine: NVML read this machine, the hardware is
  // declared, and the cells get no GPU figures at all.
  RunResult remote = test::site_result("remote");
  remote.hardware.source = HardwareSource::Declared;
  remote.hardware.source_detail = "--server-hardware gpu-box.json";
  remote.telemetry = TelemetryInfo{};
  remote.telemetry->gpu_source = "nvml";
  remote.telemetry->client_side_only = true;
  ASSERT_EQ(upload(remote), 201);
  SiteResponse remote_page = get("/runs/remote");
  EXPECT_NE(remote_page.body.find("id=\"telemetry-client-side\""), std::string::npos);
  EXPECT_EQ(remote_page.body.find("id=\"throttle-verdict\""), std::string::npos);
  EXPECT_EQ(remote_page.body.find("id=\"telemetry-table\""), std::string::npos);
  EXPECT_EQ(json::parse(get("/api/v1/runs?model=Qwen3.5-4B").body)["runs"][0]["gpu_telemetry"],
            "client_side_only");

  RunResult simulated = test::site_result("sim", "M1", "NVIDIA GeForce RTX 3090", 180, 8783, "simulated");
  simulated.hardware.source = HardwareSource::Simulated;
  simulated.telemetry = TelemetryInfo{};
  simulated.telemetry->gpu_unavailable = "the simulated engine has no GPU";
  ASSERT_EQ(upload(simulated), 201);
  EXPECT_NE(get("/runs/sim").body.find("No GPU telemetry in this run: the simulated engine has no GPU."),
            std::string::npos);

  ASSERT_EQ(upload(test::site_result("plain")), 201);
  SiteResponse plain = get("/runs/plain");
  EXPECT_NE(plain.body.find("id=\"telemetry-none\">No GPU telemetry in this run: it was not sampled"), std::string::npos);
  EXPECT_EQ(plain.body.find("id=\"telemetry-table\""), std::string::npos);

  RunResult no_nvml = test::site_result("no-nvml");
  no_nvml.telemetry = TelemetryInfo{};
  no_nvml.telemetry->gpu_unavailable = "libnvidia-ml.so.1 <not found>";
  ASSERT_EQ(upload(no_nvml), 201);
  EXPECT_NE(get("/runs/no-nvml").body.find("No GPU telemetry in this run: libnvidia-ml.so.1 &lt;not found&gt;."),
            std::string::npos);
}

}  // namespace
}  // namespace sm::site
