#pragma once
// The plan as a terminal grid: rows context, columns concurrency, like the seed page.
#include <string>

#include "result/plan.h"

namespace sm {

std::string plan_to_text(const Plan& plan);

}  // namespace sm
