#include "metrics/energy_cost.h"

#include <cmath>
#include <fmt/format.h>

namespace sm {

namespace {

constexpr double kJPerKwh = 3.6e6;
constexpr double kSPerHour = 3600;

// Prompt tokens of one request: the server's count where it gave one, else the cell's context.
double prompt_tokens_per_request(const DecodeCell& cell) {
  if (cell.prompt_tokens_min && cell.prompt_tokens_max)
    return 0.5 * static_cast<double>(*cell.prompt_tokens_min + *cell.prompt_tokens_max);
  return static_cast<double>(cell.context);
}

// Idle seconds charged to each served second.
double idle_per_busy(double busy_share) { return (1 - busy_share) / busy_share; }

}  // namespace

EnergyInputs energy_inputs(const RunResult& run) {
  EnergyInputs in;
  in.cost = run.settings.cost;
  if (run.telemetry) {
    in.host_is_server = !run.telemetry->client_side_only;
    in.idle_gpu_power_w = run.telemetry->idle_gpu_power_w;
    if (in.host_is_server) in.idle_host_power_w = run.telemetry->idle_host_power_w;
  }
  return in;
}

CostPerMtok cost_per_mtok(double power_w, double idle_power_w, double tok_s, const CostSettings& cost) {
  CostPerMtok out;
  if (!(tok_s > 0)) return out;
  const double u = cost.busy_share;
  // Per served second: its own energy, the idle seconds' energy, and (1 / u) seconds of ownership.
  const double j_per_s = power_w + idle_power_w * idle_per_busy(u);
  const double tokens_per_s = tok_s;
  if (cost.power_price_per_kwh) out.energy = 1e6 * (j_per_s / kJPerKwh) * *cost.power_price_per_kwh / tokens_per_s;
  if (cost.hardware_cost && cost.amortize_years) {
    const double per_s = *cost.hardware_cost / (*cost.amortize_years * kHoursPerYear * kSPerHour);
    out.hardware = 1e6 * per_s / u / tokens_per_s;
  }
  if (out.energy || out.hardware) out.total = out.energy.value_or(0) + out.hardware.value_or(0);
  return out;
}

std::optional<CellEnergy> cell_energy(const DecodeCell& cell, const EnergyInputs& in) {
  if (cell.status != CellStatus::Valid || !cell.output_tokens || *cell.output_tokens <= 0 || !cell.measured_s ||
      *cell.measured_s <= 0)
    return std::nullopt;
  const std::optional<double> gpu_j = cell.telemetry.gpu_energy_j;
  const std::optional<double> rapl_j = in.host_is_server ? cell.telemetry.host_energy_j : std::nullopt;
  if (!gpu_j && !rapl_j) return std::nullopt;
  const double t_s = *cell.measured_s;
  CellEnergy e;
  e.output_tokens = *cell.output_tokens;
  e.total_tokens = e.output_tokens + static_cast<int64_t>(std::llround(static_cast<double>(cell.completed.value_or(0)) *
                                                                      prompt_tokens_per_request(cell)));
  const double out_n = static_cast<double>(e.output_tokens);
  const double total_n = static_cast<double>(e.total_tokens);
  if (gpu_j) {
    e.gpu_j_per_output_token = *gpu_j / out_n;
    e.gpu_j_per_total_token = *gpu_j / total_n;
  }
  double host_idle_w = 0;
  if (rapl_j) {
    e.host_energy_j = *rapl_j;
    e.host_source = "rapl";
    host_idle_w = in.idle_host_power_w.value_or(0);
  } else {
    e.host_energy_j = in.cost.host_power_w.value_or(kDefaultHostBusyPowerW) * t_s;
    e.host_source = "estimate";
    host_idle_w = in.cost.host_power_w.value_or(kDefaultHostIdlePowerW);
  }
  const double energy_j = gpu_j.value_or(0) + e.host_energy_j;
  e.j_per_output_token = energy_j / out_n;
  e.j_per_total_token = energy_j / total_n;
  e.power_w = energy_j / t_s;
  e.idle_power_w = (gpu_j ? in.idle_gpu_power_w.value_or(0) : 0) + host_idle_w;
  e.served_j_per_output_token =
      (energy_j + e.idle_power_w * t_s * idle_per_busy(in.cost.busy_share)) / out_n;
  const CostPerMtok c = cost_per_mtok(e.power_w, e.idle_power_w, out_n / t_s, in.cost);
  e.energy_cost_per_mtok = c.energy;
  e.hardware_cost_per_mtok = c.hardware;
  e.cost_per_mtok = c.total;
  return e;
}

void apply_energy(RunResult& run, const EnergyInputs& in) {
  for (DecodeCell& c : run.decode) c.energy = cell_energy(c, in);
  for (CapacityPoint& p : run.capacity) {
    p.j_per_output_token.reset();
    p.cost_per_mtok.reset();
    if (p.users < 1 || !p.total_tok_s || *p.total_tok_s <= 0) continue;
    // The cells on either side of the point's users at its context (the same cell when measured).
    const DecodeCell* lo = nullptr;
    const DecodeCell* hi = nullptr;
    for (const DecodeCell& c : run.decode) {
      if (c.context != p.context || !c.energy) continue;
      if (c.concurrency <= p.users && (!lo || c.concurrency > lo->concurrency)) lo = &c;
      if (c.concurrency >= p.users && (!hi || c.concurrency < hi->concurrency)) hi = &c;
    }
    if (!lo || !hi) continue;
    double power_w = lo->energy->power_w;
    double idle_w = lo->energy->idle_power_w;
    if (hi->concurrency != lo->concurrency) {
      const double f = static_cast<double>(p.users - lo->concurrency) /
                       static_cast<double>(hi->concurrency - lo->concurrency);
      power_w += f * (hi->energy->power_w - lo->energy->power_w);
      idle_w += f * (hi->energy->idle_power_w - lo->energy->idle_power_w);
    }
    const double tok_s = *p.total_tok_s;
    p.j_per_output_token = (power_w + idle_w * idle_per_busy(in.cost.busy_share)) / tok_s;
    p.cost_per_mtok = cost_per_mtok(power_w, idle_w, tok_s, in.cost).total;
  }
}

std::string check_cost_settings(const CostSettings& c) {
  auto positive = [](const std::optional<double>& v) { return !v || (std::isfinite(*v) && *v > 0); };
  if (!positive(c.power_price_per_kwh)) return "--power-price must be a positive number (currency per kWh)";
  if (!positive(c.hardware_cost)) return "--hardware-cost must be a positive number (currency)";
  if (!positive(c.amortize_years)) return "--amortize-years must be a positive number of years";
  if (c.host_power_w && !(std::isfinite(*c.host_power_w) && *c.host_power_w >= 0))
    return "--host-power-w must be a number of watts, 0 or more";
  if (!(std::isfinite(c.busy_share) && c.busy_share > 0 && c.busy_share <= 1))
    return "--busy-share must be more than 0 and at most 1";
  if (c.hardware_cost.has_value() != c.amortize_years.has_value())
    return "--hardware-cost and --amortize-years go together: the cost is written off over the years";
  return "";
}

}  // namespace sm
