#pragma once
// A reader's own prices on a run page (docs/site.md, "A reader's own prices"): `/runs/ID?power_price=0.2`
// (currency per kWh), with `hardware_cost`, `amortize_years`, `busy_share` and `currency` beside it,
// replace the prices stored with the run, and the cost per million output tokens of every decode
// cell and capacity point is worked out again from the stored energies (metrics/energy_cost.h).
// Nothing is stored; no account.
#include <string>

#include "core/error.h"
#include "result/result.h"
#include "site/query_string.h"

namespace sm::site {

/// Whether the query names a price (then the run's figures are recomputed).
bool has_query_prices(const QueryParams& params);

/// Applies the query's prices to `run` and recomputes its energy figures; an error (for a 400
/// page) naming the parameter when a value is not a number or out of range.
Result<void> apply_query_prices(const QueryParams& params, RunResult& run);

/// The query's price parameters, to carry on a link to another page of the same run
/// ("power_price=0.2&currency=EUR&"; "" for none): a reader's prices stay as they page.
std::string price_query_prefix(const QueryParams& params);

/// A small GET form for the electricity price (and the hardware's), filled with the prices in
/// use; empty when the run has no cell with an energy. Labels in the page's language.
std::string price_form_html(const RunResult& run, const std::string& action);

}  // namespace sm::site
