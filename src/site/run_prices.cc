#include "site/run_prices.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>
#include <utility>
#include <fmt/format.h>

#include "metrics/capacity.h"
#include "metrics/energy_cost.h"
#include "site/page_layout.h"
#include "site/ui_language.h"

namespace sm::site {

namespace {

constexpr const char* kNumberParams[] = {"power_price", "hardware_cost", "amortize_years", "busy_share"};

std::optional<double> parse_number(const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string number_text(double v) { return fmt::format("{:g}", v); }

}  // namespace

bool has_query_prices(const QueryParams& params) {
  return std::any_of(std::begin(kNumberParams), std::end(kNumberParams),
                     [&](const char* name) { return !params.get(name).empty(); }) ||
         !params.get("currency").empty();
}

std::string price_query_prefix(const QueryParams& params) {
  std::vector<std::pair<std::string, std::string>> kept;
  for (const char* name : kNumberParams)
    if (const std::string v = params.get(name); !v.empty()) kept.emplace_back(name, v);
  if (const std::string v = params.get("currency"); !v.empty()) kept.emplace_back("currency", v);
  if (kept.empty()) return "";
  std::string query = build_query(kept);
  if (!query.empty() && query.front() == '?') query.erase(0, 1);
  return query + "&";
}

Result<void> apply_query_prices(const QueryParams& params, RunResult& run) {
  CostSettings cost = run.settings.cost;
  std::optional<double>* targets[] = {&cost.power_price_per_kwh, &cost.hardware_cost, &cost.amortize_years, nullptr};
  for (size_t i = 0; i < std::size(kNumberParams); ++i) {
    const std::string text = params.get(kNumberParams[i]);
    if (text.empty()) continue;
    auto v = parse_number(text);
    if (!v) return fail(ErrorCode::InvalidArgument, fmt::format("{} must be a number, not \"{}\"", kNumberParams[i], text));
    if (targets[i]) *targets[i] = *v;
    else cost.busy_share = *v;
  }
  if (const std::string currency = params.get("currency"); !currency.empty()) cost.currency = currency.substr(0, 8);
  if (std::string why = check_cost_settings(cost); !why.empty()) {
    // The messages name the run flags; the page's parameters are their snake_case names.
    constexpr std::pair<std::string_view, std::string_view> kNames[] = {
        {"--power-price", "power_price"}, {"--hardware-cost", "hardware_cost"},
        {"--amortize-years", "amortize_years"}, {"--busy-share", "busy_share"}};
    for (auto [flag, param] : kNames)
      if (auto at = why.find(flag); at != std::string::npos) why.replace(at, flag.size(), param);
    return fail(ErrorCode::InvalidArgument, why);
  }
  run.settings.cost = cost;
  if (run.capacity.empty()) run.capacity = run_capacity(run);
  apply_energy(run, energy_inputs(run));
  return {};
}

std::string price_form_html(const RunResult& run, const std::string& action) {
  if (std::none_of(run.decode.begin(), run.decode.end(), [](const DecodeCell& c) { return c.energy.has_value(); }))
    return "";
  const CostSettings& c = run.settings.cost;
  auto input = [](const char* name, const std::optional<double>& v, const std::string& label) {
    return "<label>" + esc(label) + " <input type=\"number\" step=\"any\" min=\"0\" name=\"" + name + "\" value=\"" +
           (v ? esc(number_text(*v)) : std::string()) + "\" size=\"8\"></label> ";
  };
  std::string out = "<form class=\"prices\" method=\"get\" action=\"" + esc(action) + "\"><p class=\"note\">";
  out += input("power_price", c.power_price_per_kwh, ui_text("run.prices.power_price"));
  out += input("hardware_cost", c.hardware_cost, ui_text("run.prices.hardware_cost"));
  out += input("amortize_years", c.amortize_years, ui_text("run.prices.amortize_years"));
  out += "<button type=\"submit\">" + esc(ui_text("run.prices.apply")) + "</button> " +
         esc(ui_text("run.prices.note")) + "</p></form>\n";
  return out;
}

}  // namespace sm::site
