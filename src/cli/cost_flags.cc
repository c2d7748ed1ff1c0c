#include "cli/cost_flags.h"

#include "metrics/energy_cost.h"

namespace sm::cli {

void add_cost_flags(CLI::App* cmd, CostFlags& f) {
  cmd->add_option("--power-price", f.power_price,
                  "Electricity price per kWh (e.g. 0.15): each decode cell and capacity point gets a cost per million "
                  "output tokens where its energy was measured (GPU telemetry or RAPL)");
  cmd->add_option("--currency", f.currency, "A label for the prices, e.g. USD or EUR (only shown)");
  cmd->add_option("--hardware-cost", f.hardware_cost,
                  "What the machine cost (e.g. 30000), written off over --amortize-years: its share of each million "
                  "output tokens' time is added to the cost");
  cmd->add_option("--amortize-years", f.amortize_years, "Years the --hardware-cost is written off over (e.g. 3)");
  cmd->add_option("--host-power-w", f.host_power_w,
                  "The host's draw in watts where RAPL cannot be read (busy and idle; 0: count the GPUs only); "
                  "default: 250 W busy, 165 W idle (docs/METRICS.md)");
  cmd->add_option("--busy-share", f.busy_share,
                  "Share of the time the box serves (0-1, default 1): the rest it waits at its idle power, and that "
                  "energy and time are charged to the tokens it serves");
}

Result<void> apply_cost_flags(const CostFlags& f, CostSettings& cost) {
  if (f.power_price) cost.power_price_per_kwh = *f.power_price;
  if (f.currency) cost.currency = *f.currency;
  if (f.hardware_cost) cost.hardware_cost = *f.hardware_cost;
  if (f.amortize_years) cost.amortize_years = *f.amortize_years;
  if (f.host_power_w) cost.host_power_w = *f.host_power_w;
  if (f.busy_share) cost.busy_share = *f.busy_share;
  if (const std::string why = check_cost_settings(cost); !why.empty()) return fail(ErrorCode::InvalidArgument, why);
  return {};
}

}  // namespace sm::cli
