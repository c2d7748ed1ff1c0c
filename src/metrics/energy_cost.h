#pragma once
// Energy per token and cost per million output tokens (issue 34, docs/METRICS.md "Energy and cost
// per million tokens"): from a decode cell's window (output tokens, length, the GPUs' energy, the
// host's energy: RAPL where it was read, else a constant power × time), the box's idle draw for the
// share of time it waits (busy_share), and the prices (electricity per kWh, the machine's cost
// written off over years). Pure: the runner, `report` and the site call the same functions, so a
// reader's own price gives the same arithmetic.
#include <optional>
#include <span>
#include <vector>

#include "result/result.h"

namespace sm {

/// Hours in a year: 365.25 × 24.
inline constexpr double kHoursPerYear = 8766;
/// The host's estimated draw where RAPL cannot be read and --host-power-w is not given: the two
/// SPECpower_ssj2008 servers J. Lamb, "The Greening of IT" (2009), ch. 7, figures 7.1 and 7.2 cite,
/// 260 W and 244 W at full load, 187 W and 143 W at active idle; the means, rounded.
inline constexpr double kDefaultHostBusyPowerW = 250;
inline constexpr double kDefaultHostIdlePowerW = 165;

/// What the energy figures need besides the cell.
struct EnergyInputs {
  CostSettings cost;
  bool host_is_server = true;               ///< the host readings are the server's machine (not a remote client)
  std::optional<double> idle_gpu_power_w;   ///< the server's GPUs waiting (telemetry)
  std::optional<double> idle_host_power_w;  ///< the CPU packages waiting (RAPL)
};

/// The inputs of a run: its settings' prices and its telemetry's idle draw.
EnergyInputs energy_inputs(const RunResult& run);

/// A cell's figures; empty when the cell is not valid, has no output tokens or window, or neither
/// the GPUs' energy nor (on the server's machine) RAPL's was measured.
std::optional<CellEnergy> cell_energy(const DecodeCell& cell, const EnergyInputs& in);

/// Cost per million output tokens of a box drawing `power_w` while it serves, `idle_power_w` while
/// it waits, producing `tok_s` output tokens per second while it serves (empty without a price or
/// a rate). Fills energy and hardware parts.
struct CostPerMtok {
  std::optional<double> energy, hardware, total;
};
CostPerMtok cost_per_mtok(double power_w, double idle_power_w, double tok_s, const CostSettings& cost);

/// Fills every decode cell's energy and every capacity point's energy and cost (run.capacity
/// must already hold the points).
void apply_energy(RunResult& run, const EnergyInputs& in);

/// Checks the prices: positive, finite; busy share in (0, 1]; hardware cost and years together.
/// An empty string when they are fine, else what is wrong (for a CLI error).
std::string check_cost_settings(const CostSettings& cost);

}  // namespace sm
