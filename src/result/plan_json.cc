#include "result/plan_json.h"

namespace sm {

nlohmann::json plan_to_json(const Plan& plan) {
  nlohmann::json decode = nlohmann::json::array();
  for (const auto& c : plan.decode)
    decode.push_back({{"context", c.context}, {"concurrency", c.concurrency}, {"status", to_string(c.status)}});
  nlohmann::json prefill = nlohmann::json::array();
  for (const auto& r : plan.prefill) prefill.push_back({{"context", r.context}, {"status", to_string(r.status)}});
  return {{"decode", decode}, {"prefill", prefill}};
}

}  // namespace sm
