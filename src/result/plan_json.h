#pragma once
// The plan as JSON: {"decode":[{"context","concurrency","status"}...],"prefill":[{"context","status"}...]}.
#include <nlohmann/json.hpp>

#include "result/plan.h"

namespace sm {

nlohmann::json plan_to_json(const Plan& plan);

}  // namespace sm
