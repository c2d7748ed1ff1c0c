// A reader's own prices on a run page (issue 34, point 4): `?power_price=` (and the hardware's)
// recomputes every cost per million output tokens from the stored energies; nothing is stored; a
// bad value is a 400 naming the parameter.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "metrics/energy_cost.h"
#include "report/report_energy.h"
#include "result/result_json.h"
#include "site/run_prices.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/site_harness.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

RunResult priced_run() {
  RunResult r = test::site_result("energy", "M1", "NVIDIA GeForce RTX 3090");
  test::add_gpu_telemetry(r, 1.0);
  r.settings.cost.power_price_per_kwh = 0.10;
  r.settings.cost.currency = "EUR";
  apply_energy(r, energy_inputs(r));
  return r;
}

// The first valid cell's cost, as the report writes it.
std::string first_cost(const RunResult& r) {
  for (const auto& c : r.decode)
    if (c.energy && c.energy->cost_per_mtok) return report::format_cost(*c.energy->cost_per_mtok, "EUR");
  return "";
}

TEST(RunPrices, QueryPricesRecomputeTheCosts) {
  RunResult r = priced_run();
  const double stored = *r.decode.at(0).energy->energy_cost_per_mtok;
  ASSERT_TRUE(apply_query_prices(QueryParams("power_price=0.3&hardware_cost=20000&amortize_years=4"), r));
  EXPECT_NEAR(*r.decode[0].energy->energy_cost_per_mtok, 3 * stored, 1e-12) << "three times the price";
  ASSERT_TRUE(r.decode[0].energy->hardware_cost_per_mtok.has_value());
  EXPECT_EQ(r.settings.cost.currency, "EUR") << "what the query does not name stays";

  RunResult bad = priced_run();
  auto not_number = apply_query_prices(QueryParams("power_price=cheap"), bad);
  ASSERT_FALSE(not_number);
  EXPECT_NE(not_number.error().message.find("power_price"), std::string::npos);
  auto alone = apply_query_prices(QueryParams("hardware_cost=20000"), bad);
  ASSERT_FALSE(alone);
  EXPECT_NE(alone.error().message.find("amortize_years"), std::string::npos) << alone.error().message;
  EXPECT_FALSE(has_query_prices(QueryParams("cells=2")));
  EXPECT_EQ(price_query_prefix(QueryParams("cells=2")), "");
  EXPECT_EQ(price_query_prefix(QueryParams("cells=2&busy_share=0.5&power_price=0.2")), "power_price=0.2&busy_share=0.5&");
}

class RunPricesSite : public test::SiteHarness {};

TEST_F(RunPricesSite, RunPageTakesTheReadersElectricityPrice) {
  const RunResult run = priced_run();
  ASSERT_EQ(request(HttpMethod::Post, "/api/v1/runs", to_json(run).dump()).status, 201);
  const SiteResponse page = request(HttpMethod::Get, "/runs/energy");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("Energy per output token"), std::string::npos);
  EXPECT_NE(page.body.find(first_cost(run)), std::string::npos) << "the stored price's cost";
  EXPECT_NE(page.body.find("name=\"power_price\" value=\"0.1\""), std::string::npos) << "the form holds it";

  RunResult mine = run;
  ASSERT_TRUE(apply_query_prices(QueryParams("power_price=0.42"), mine));
  ASSERT_NE(first_cost(mine), first_cost(run));
  const SiteResponse priced = request(HttpMethod::Get, "/runs/energy?power_price=0.42");
  ASSERT_EQ(priced.status, 200);
  EXPECT_NE(priced.body.find(first_cost(mine)), std::string::npos) << "the reader's price's cost";
  EXPECT_NE(priced.body.find("name=\"power_price\" value=\"0.42\""), std::string::npos);

  // Nothing stored: the plain page still shows the run's own price.
  EXPECT_NE(request(HttpMethod::Get, "/runs/energy").body.find(first_cost(run)), std::string::npos);
  EXPECT_EQ(request(HttpMethod::Get, "/runs/energy?power_price=-1").status, 400);
}

}  // namespace
}  // namespace sm::site
