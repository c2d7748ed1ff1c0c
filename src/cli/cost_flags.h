#pragma once
// The prices behind the cost per million output tokens (docs/METRICS.md, "Energy and cost per
// million tokens"): --power-price, --currency, --hardware-cost, --amortize-years, --host-power-w,
// --busy-share; shared by run (stored in the result) and report (a reader's own prices).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "core/error.h"
#include "result/result.h"

namespace sm::cli {

struct CostFlags {
  std::optional<double> power_price;     ///< --power-price, currency per kWh
  std::optional<std::string> currency;   ///< --currency
  std::optional<double> hardware_cost;   ///< --hardware-cost
  std::optional<double> amortize_years;  ///< --amortize-years
  std::optional<double> host_power_w;    ///< --host-power-w
  std::optional<double> busy_share;      ///< --busy-share
};

void add_cost_flags(CLI::App* cmd, CostFlags& flags);

/// The flags given, over `cost` (the stored prices, or none); an error naming the flag when they
/// do not make sense.
Result<void> apply_cost_flags(const CostFlags& flags, CostSettings& cost);

}  // namespace sm::cli
