#pragma once
// The mixed-prefill rows' part of result.json (docs/result-schema.json, `mixed_prefill`). Used by
// result_json.cc.
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "result/result.h"

namespace sm {

nlohmann::json mixed_prefill_to_json(const MixedPrefillRow& row);
Result<MixedPrefillRow> mixed_prefill_from_json(const nlohmann::json& j);

}  // namespace sm
