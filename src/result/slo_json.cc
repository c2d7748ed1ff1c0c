#include "result/slo_json.h"

#include <fmt/format.h>

#include "result/json_fields.h"

namespace sm {

using nlohmann::json;
using json_fields::opt;
using json_fields::read;
using json_fields::read_opt;

json slo_targets_to_json(const SloTargets& t) {
  return {{"ttft_ms", opt(t.ttft_ms)}, {"tpot_ms", opt(t.tpot_ms)}, {"percentile", t.percentile}};
}

SloTargets slo_targets_from_json(const json& j) {
  SloTargets t;
  read_opt(j, "ttft_ms", t.ttft_ms);
  read_opt(j, "tpot_ms", t.tpot_ms);
  read(j, "percentile", t.percentile);
  return t;
}

json slo_judgement_to_json(const SloJudgement& s) {
  return {{"meets", s.meets},
          {"requests", s.requests},
          {"met", s.met},
          {"met_fraction", opt(s.met_fraction)},
          {"ttft_ms", opt(s.ttft_ms)},
          {"tpot_ms", opt(s.tpot_ms)},
          {"achieved_rps", opt(s.achieved_rps)},
          {"goodput_rps", opt(s.goodput_rps)},
          {"goodput_tok_s", opt(s.goodput_tok_s)}};
}

SloJudgement slo_judgement_from_json(const json& j) {
  SloJudgement s;
  read(j, "meets", s.meets);
  read(j, "requests", s.requests);
  read(j, "met", s.met);
  read_opt(j, "met_fraction", s.met_fraction);
  read_opt(j, "ttft_ms", s.ttft_ms);
  read_opt(j, "tpot_ms", s.tpot_ms);
  read_opt(j, "achieved_rps", s.achieved_rps);
  read_opt(j, "goodput_rps", s.goodput_rps);
  read_opt(j, "goodput_tok_s", s.goodput_tok_s);
  return s;
}

json slo_search_to_json(const SloSearch& s) {
  json points = json::array();
  for (const auto& p : s.points) {
    json o = {{"concurrency", p.concurrency}, {"source", p.source}, {"status", std::string(to_string(p.status))},
              {"judgement", p.judgement ? slo_judgement_to_json(*p.judgement) : json(nullptr)}};
    if (!p.error.empty()) o["error"] = p.error;
    points.push_back(std::move(o));
  }
  return {{"context", s.context},
          {"basis", s.basis},
          {"concurrency", s.concurrency},
          {"failing_concurrency", opt(s.failing_concurrency)},
          {"passed_above", opt(s.passed_above)},
          {"max_concurrency", s.max_concurrency},
          {"probes", s.probes},
          {"points", std::move(points)}};
}

Result<SloSearch> slo_search_from_json(const json& j) {
  if (!j.is_object()) return fail(ErrorCode::InvalidArgument, "result JSON: an slo_search entry is not an object");
  SloSearch s;
  read(j, "context", s.context);
  read(j, "basis", s.basis);
  read(j, "concurrency", s.concurrency);
  read_opt(j, "failing_concurrency", s.failing_concurrency);
  read_opt(j, "passed_above", s.passed_above);
  read(j, "max_concurrency", s.max_concurrency);
  read(j, "probes", s.probes);
  if (auto it = j.find("points"); it != j.end() && it->is_array()) {
    for (const auto& o : *it) {
      if (!o.is_object()) return fail(ErrorCode::InvalidArgument, "result JSON: an slo_search point is not an object");
      SloPoint p;
      read(o, "concurrency", p.concurrency);
      read(o, "source", p.source);
      std::string status = "valid";
      read(o, "status", status);
      auto parsed = parse_cell_status(status);
      if (!parsed) return fail(ErrorCode::InvalidArgument, fmt::format("result JSON: slo_search point status \"{}\"", status));
      p.status = *parsed;
      if (auto jj = o.find("judgement"); jj != o.end() && jj->is_object()) p.judgement = slo_judgement_from_json(*jj);
      read(o, "error", p.error);
      s.points.push_back(std::move(p));
    }
  }
  return s;
}

}  // namespace sm
