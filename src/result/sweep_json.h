#pragma once
// The `sweep` section of result.json (a request-rate sweep) <-> SweepInfo.
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "result/result.h"

namespace sm {

nlohmann::json sweep_to_json(const SweepInfo& sweep);
Result<SweepInfo> sweep_from_json(const nlohmann::json& json);

}  // namespace sm
