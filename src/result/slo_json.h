#pragma once
// The SLO search's part of result.json (docs/result-schema.json): the targets in settings.slo, a
// decode cell's `slo` judgement and the `slo_search` list. Used by result_json.cc.
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "result/result.h"

namespace sm {

nlohmann::json slo_targets_to_json(const SloTargets& t);
SloTargets slo_targets_from_json(const nlohmann::json& j);

nlohmann::json slo_judgement_to_json(const SloJudgement& j);
SloJudgement slo_judgement_from_json(const nlohmann::json& j);

nlohmann::json slo_search_to_json(const SloSearch& s);
Result<SloSearch> slo_search_from_json(const nlohmann::json& j);

}  // namespace sm
