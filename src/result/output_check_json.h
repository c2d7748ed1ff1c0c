#pragma once
// A cell's or a sweep rate's "output_check" object in result.json (docs/METRICS.md, "Output checks").
#include <nlohmann/json.hpp>
#include <optional>

#include "result/result.h"

namespace sm {

/// Writes `check` as out["output_check"]; nothing when it is absent.
void output_check_to_json(const std::optional<OutputCheckSummary>& check, nlohmann::json& out);
/// Reads j["output_check"] into `check`; absent (files from before the checks) leaves it empty.
void output_check_from_json(const nlohmann::json& j, std::optional<OutputCheckSummary>& check);

}  // namespace sm
