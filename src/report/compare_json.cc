// compare --format json: the CompareModel's numbers for scripts and CI. Every later run gets every
// prefill row and decode cell with, per metric, both values, the ratio, its 95% interval and
// whether it is significant, so a pipeline can fail on "significant and worse" without parsing
// the tables. Field names follow result.json's; relative widths are fractions (0.05 = 5%).
#include <nlohmann/json.hpp>

#include "report/compare_model.h"
#include "result/cell_status.h"

namespace sm::report {

namespace {

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::string change_name(Change c) {
  switch (c) {
    case Change::Better: return "better";
    case Change::Worse: return "worse";
    case Change::Same: return "within_noise";
    case Change::None: return "none";
  }
  return "none";
}

// A value's status as result.json names it; "absent" when the run has no such row or cell.
std::string status_name(const CompareValue& v) { return v.present ? std::string(to_string(v.status)) : "absent"; }

nlohmann::json metric_json(const CompareValue& base, const CompareValue& v, CompareMetric metric) {
  return {
      {"baseline", opt(base.value)},
      {"value", opt(v.value)},
      {"baseline_status", status_name(base)},
      {"status", status_name(v)},
      {"higher_is_better", higher_is_better(metric)},
      {"baseline_within", base.value ? nlohmann::json(base.within) : nlohmann::json(nullptr)},
      {"within", v.value ? nlohmann::json(v.within) : nlohmann::json(nullptr)},
      // Null: no --repeat passes, so between_run_floor stood in.
      {"baseline_between", opt(base.between)},
      {"between", opt(v.between)},
      {"ratio", opt(v.ratio)},
      {"ratio_low", opt(v.ratio_low)},
      {"ratio_high", opt(v.ratio_high)},
      {"significant", v.significant},
      {"change", change_name(v.change)},
  };
}

nlohmann::json section_json(const CompareSection& s, size_t run) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : s.rows) {
    nlohmann::json r = {{"context", row.context}};
    if (!s.prefill) r["concurrency"] = row.concurrency;
    for (size_t i = 0; i < s.metrics.size(); ++i)
      r[metric_key(s.metrics[i])] = metric_json(row.values[i][0], row.values[i][run], s.metrics[i]);
    rows.push_back(std::move(r));
  }
  return rows;
}

nlohmann::json run_json(const CompareRun& r) {
  return {{"letter", r.letter}, {"label", r.label}, {"run_id", r.run_id}, {"started_at", r.started_at},
          {"title", r.title},   {"engine", r.engine}, {"kind", r.kind}};
}

}  // namespace

std::string compare_json(const CompareModel& m) {
  nlohmann::json doc;
  doc["runs"] = nlohmann::json::array();
  for (const auto& r : m.runs) doc["runs"].push_back(run_json(r));
  if (!m.runs.empty()) doc["baseline_run_id"] = m.runs[0].run_id;
  doc["noise"] = {{"between_run_floor_tok_s", kBetweenRunNoiseFloor},
                  {"between_run_floor_latency", kLatencyNoiseFloor},
                  {"confidence", 0.95},
                  {"rule", m.noise_rule}};
  doc["setting_differences"] = m.setting_differences;
  doc["comparisons"] = nlohmann::json::array();
  for (size_t run = 1; run < m.runs.size(); ++run) {
    const CompareSummary& s = m.summaries[run - 1];
    nlohmann::json c = {{"letter", m.runs[run].letter},
                        {"run_id", m.runs[run].run_id},
                        {"baseline_run_id", m.runs[0].run_id},
                        {"summary",
                         {{"cells", s.cells},
                          {"geo_mean_total_tok_s_ratio", opt(s.geo_mean)},
                          {"better", s.better},
                          {"worse", s.worse},
                          {"within_noise", s.same},
                          {"only_baseline", s.only_first},
                          {"only_this", s.only_this}}},
                        {"prefill", section_json(m.prefill, run)},
                        {"decode", section_json(m.decode, run)}};
    doc["comparisons"].push_back(std::move(c));
  }
  return doc.dump(2) + "\n";
}

}  // namespace sm::report
