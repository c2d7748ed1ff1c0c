#include "result/output_check_json.h"

#include "result/json_fields.h"

namespace sm {

void output_check_to_json(const std::optional<OutputCheckSummary>& check, nlohmann::json& out) {
  if (!check) return;
  const OutputCheckSummary& o = *check;
  out["output_check"] = {{"verdict", o.verdict},   {"requests", o.requests}, {"repeat", o.repeat},
                         {"empty", o.empty},       {"not_text", o.not_text}, {"count_mismatch", o.count_mismatch},
                         {"flaw", o.flaw},         {"excerpt", o.excerpt}};
}

void output_check_from_json(const nlohmann::json& j, std::optional<OutputCheckSummary>& check) {
  check.reset();
  auto o = j.find("output_check");
  if (o == j.end() || !o->is_object()) return;
  using json_fields::read;
  OutputCheckSummary& checked = check.emplace();
  read(*o, "verdict", checked.verdict);
  read(*o, "requests", checked.requests);
  read(*o, "repeat", checked.repeat);
  read(*o, "empty", checked.empty);
  read(*o, "not_text", checked.not_text);
  read(*o, "count_mismatch", checked.count_mismatch);
  read(*o, "flaw", checked.flaw);
  read(*o, "excerpt", checked.excerpt);
}

}  // namespace sm
