#include "report/plan_text.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/units.h"

namespace sm {

namespace {
std::string_view short_status(CellStatus s) {
  switch (s) {
    case CellStatus::Valid: return "run";
    case CellStatus::OverCapacity: return "over cap";
    case CellStatus::BeyondModel: return "beyond";
    default: return to_string(s);
  }
}
}  // namespace

std::string plan_to_text(const Plan& plan) {
  std::string out;
  if (!plan.prefill.empty()) {
    out += "Prefill (one cold request each)\n";
    for (const auto& r : plan.prefill)
      out += fmt::format("  {:>6}  {}\n", format_tokens(r.context), short_status(r.status));
  }
  if (!plan.decode.empty()) {
    std::vector<int64_t> cols;
    for (const auto& c : plan.decode)
      if (std::find(cols.begin(), cols.end(), c.concurrency) == cols.end()) cols.push_back(c.concurrency);
    out += "Sustained decode (rows: context, columns: simultaneous requests)\n";
    out += fmt::format("  {:>7}", "Context");
    for (int64_t n : cols) out += fmt::format(" {:>9}", n);
    out += "\n";
    int64_t row = -1;
    for (const auto& c : plan.decode) {
      if (c.context != row) {
        if (row != -1) out += "\n";
        row = c.context;
        out += fmt::format("  {:>7}", format_tokens(c.context));
      }
      out += fmt::format(" {:>9}", short_status(c.status));
    }
    out += "\n";
  }
  size_t runnable = 0;
  for (const auto& r : plan.prefill) runnable += r.status == CellStatus::Valid;
  for (const auto& c : plan.decode) runnable += c.status == CellStatus::Valid;
  out += fmt::format("{} of {} rows and cells will run.\n", runnable, plan.prefill.size() + plan.decode.size());
  const bool beyond = std::any_of(plan.prefill.begin(), plan.prefill.end(),
                                  [](const auto& r) { return r.status == CellStatus::BeyondModel; }) ||
                      std::any_of(plan.decode.begin(), plan.decode.end(),
                                  [](const auto& c) { return c.status == CellStatus::BeyondModel; });
  if (beyond) out += "beyond: beyond the model's context length (context + max output); not run.\n";
  return out;
}

}  // namespace sm
