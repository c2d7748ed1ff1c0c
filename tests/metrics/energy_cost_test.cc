// Energy per token and cost per million output tokens (issue 34, point 4): the formula of
// docs/METRICS.md "Energy and cost per million tokens" against hand-computed figures.
#include "metrics/energy_cost.h"

#include <gtest/gtest.h>

namespace sm {
namespace {

// 10 s window, 20,000 output tokens, 10 requests of 1,000 prompt tokens completed, 3,000 J on the GPUs.
DecodeCell cell(int64_t concurrency = 4, double gpu_j = 3000, std::optional<double> rapl_j = 1000) {
  DecodeCell c;
  c.context = 1000;
  c.concurrency = concurrency;
  c.measured_s = 10;
  c.output_tokens = 20000;
  c.completed = 10;
  c.total_tok_s = 2000;
  c.telemetry.gpu_energy_j = gpu_j;
  c.telemetry.host_energy_j = rapl_j;
  return c;
}

EnergyInputs priced(double busy_share = 0.5) {
  EnergyInputs in;
  in.cost.power_price_per_kwh = 0.15;
  in.cost.hardware_cost = 30000;
  in.cost.amortize_years = 3;
  in.cost.busy_share = busy_share;
  in.idle_gpu_power_w = 60;
  in.idle_host_power_w = 40;
  return in;
}

TEST(EnergyCost, MeasuredHostHandComputed) {
  auto e = cell_energy(cell(), priced());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->output_tokens, 20000);
  EXPECT_EQ(e->total_tokens, 30000);  // + 10 completed x 1,000 prompt tokens
  EXPECT_DOUBLE_EQ(*e->gpu_j_per_output_token, 0.15);      // 3,000 J / 20,000
  EXPECT_DOUBLE_EQ(*e->gpu_j_per_total_token, 0.1);        // 3,000 J / 30,000
  EXPECT_EQ(e->host_source, "rapl");
  EXPECT_DOUBLE_EQ(e->host_energy_j, 1000);
  EXPECT_DOUBLE_EQ(e->j_per_output_token, 0.2);            // 4,000 J / 20,000
  EXPECT_NEAR(e->j_per_total_token, 4000.0 / 30000, 1e-15);
  EXPECT_DOUBLE_EQ(e->power_w, 400);
  EXPECT_DOUBLE_EQ(e->idle_power_w, 100);                  // 60 W GPUs + 40 W host
  // Half the time busy: each served second carries an idle one at 100 W: (4,000 + 1,000) J / 20,000.
  EXPECT_DOUBLE_EQ(e->served_j_per_output_token, 0.25);
  // A million tokens: 500 s served at 2,000 tok/s, 500 s idle. Energy 500 x 400 + 500 x 100 = 250,000 J
  // = 0.069444 kWh x 0.15 = 0.0104167. Hardware 30,000 / (3 x 8,766 h) x 1,000 s / 3,600 = 0.316881.
  EXPECT_NEAR(*e->energy_cost_per_mtok, 250000.0 / 3.6e6 * 0.15, 1e-12);
  EXPECT_NEAR(*e->hardware_cost_per_mtok, 30000.0 / (3 * 8766) * (1000.0 / 3600), 1e-12);
  EXPECT_NEAR(*e->cost_per_mtok, 0.0104167 + 0.316881, 1e-6);
}

TEST(EnergyCost, HostEstimateWithoutRapl) {
  EnergyInputs in;  // no prices: energy only
  in.idle_gpu_power_w = 60;
  auto e = cell_energy(cell(4, 3000, std::nullopt), in);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->host_source, "estimate");
  EXPECT_DOUBLE_EQ(e->host_energy_j, kDefaultHostBusyPowerW * 10);
  EXPECT_DOUBLE_EQ(e->idle_power_w, 60 + kDefaultHostIdlePowerW);
  EXPECT_DOUBLE_EQ(e->j_per_output_token, (3000 + 2500) / 20000.0);
  EXPECT_DOUBLE_EQ(e->served_j_per_output_token, e->j_per_output_token) << "busy all the time: no idle share";
  EXPECT_FALSE(e->cost_per_mtok.has_value()) << "no price given";

  in.cost.host_power_w = 0;  // the GPUs only
  e = cell_energy(cell(4, 3000, std::nullopt), in);
  EXPECT_DOUBLE_EQ(e->j_per_output_token, 0.15);
  in.cost.power_price_per_kwh = 0.30;
  e = cell_energy(cell(4, 3000, std::nullopt), in);
  // 500 s at 300 W = 150,000 J = 0.041667 kWh x 0.30.
  EXPECT_NEAR(*e->cost_per_mtok, 150000.0 / 3.6e6 * 0.30, 1e-12);
  EXPECT_FALSE(e->hardware_cost_per_mtok.has_value());
}

TEST(EnergyCost, NoMeasuredEnergyNoFigures) {
  DecodeCell c = cell();
  c.telemetry.gpu_energy_j.reset();
  c.telemetry.host_energy_j.reset();
  EXPECT_FALSE(cell_energy(c, priced()).has_value()) << "an estimate alone is not a measurement";
  // A remote server: the RAPL readings are the client's.
  c.telemetry.host_energy_j = 1000;
  EnergyInputs remote = priced();
  remote.host_is_server = false;
  EXPECT_FALSE(cell_energy(c, remote).has_value());
  EXPECT_TRUE(cell_energy(c, priced()).has_value()) << "RAPL alone (a CPU-served run)";
  c.status = CellStatus::Error;
  EXPECT_FALSE(cell_energy(c, priced()).has_value());
}

TEST(EnergyCost, CapacityPointInterpolatesPower) {
  RunResult run;
  run.settings.cost.power_price_per_kwh = 0.2;
  run.decode = {cell(1, 4000, std::nullopt), cell(4, 7000, std::nullopt)};  // 400 + 250 W, 700 + 250 W
  run.decode[0].telemetry.host_energy_j.reset();
  CapacityPoint measured{1000, 20, 1, 2000.0, "measured"};
  CapacityPoint between{1000, 10, 2, 3000.0, "interpolated"};
  CapacityPoint none{1000, 50, 0, std::nullopt, "none"};
  run.capacity = {measured, between, none};
  EnergyInputs in = energy_inputs(run);
  in.cost.host_power_w = 0;  // GPUs only, to keep the arithmetic plain
  apply_energy(run, in);
  ASSERT_TRUE(run.decode[0].energy && run.decode[1].energy);
  // users 1: the cell's 400 W over 2,000 tok/s.
  EXPECT_DOUBLE_EQ(*run.capacity[0].j_per_output_token, 0.2);
  // users 2: a third of the way from 400 W to 700 W = 500 W over 3,000 tok/s.
  EXPECT_NEAR(*run.capacity[1].j_per_output_token, 500.0 / 3000, 1e-12);
  EXPECT_NEAR(*run.capacity[1].cost_per_mtok, 1e6 / 3000 * 500 / 3.6e6 * 0.2, 1e-12);
  EXPECT_FALSE(run.capacity[2].cost_per_mtok.has_value());
}

TEST(EnergyCost, SettingsChecked) {
  CostSettings c;
  EXPECT_EQ(check_cost_settings(c), "");
  c.power_price_per_kwh = -1;
  EXPECT_NE(check_cost_settings(c).find("--power-price"), std::string::npos);
  c.power_price_per_kwh = 0.1;
  c.hardware_cost = 1000;
  EXPECT_NE(check_cost_settings(c).find("--amortize-years"), std::string::npos) << "cost without years";
  c.amortize_years = 4;
  EXPECT_EQ(check_cost_settings(c), "");
  c.busy_share = 0;
  EXPECT_NE(check_cost_settings(c).find("--busy-share"), std::string::npos);
  c.busy_share = 1.5;
  EXPECT_NE(check_cost_settings(c).find("--busy-share"), std::string::npos);
}

}  // namespace
}  // namespace sm
