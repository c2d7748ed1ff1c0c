#pragma once
// The report's energy tables (docs/METRICS.md, "Energy and cost per million tokens"): joules per
// output token at each decode cell (GPU + host, the idle share included) with the cost per million
// output tokens under it where prices were given, and the cost at each "Users at a speed" point.
// Both are empty (not shown) without a cell that has a measured energy.
#include <optional>
#include <string>

#include "report/report_model.h"
#include "result/result.h"

namespace sm::report {

/// Contexts × concurrency: "0.25 J" per cell, the cost per million output tokens under it.
Matrix energy_matrix(const RunResult& r);

/// Contexts × speed floors: the cost per million output tokens at each capacity point; empty
/// without prices.
Matrix capacity_cost_matrix(const RunResult& r);

/// "0.327 USD" (three significant figures; the currency label where one was given).
std::string format_cost(double amount, const std::string& currency);

/// "0.25 J", three significant figures.
std::string format_joules_per_token(double j);

}  // namespace sm::report
