#include "report/compare_model.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/cell_noise.h"
#include "report/report_model.h"
#include "report/translate.h"

namespace sm::report {

namespace {

// p90 − p50 of a normal distribution, in standard deviations.
constexpr double kP90Sigmas = 1.2816;
// Standard error of a median ÷ that of a mean, for a normal distribution (√(π/2)).
constexpr double kMedianFactor = 1.2533;
constexpr double kZ95 = 1.959964;  // a 95% half-width is this many standard errors

std::string letter(size_t i) {
  if (i < 26) return std::string(1, static_cast<char>('A' + i));
  return fmt::format("R{}", i + 1);
}

// Relative spread (one standard deviation ÷ median) from a median and a 90th percentile.
std::optional<double> relative_sigma(std::optional<double> p50, std::optional<double> p90) {
  if (!p50 || !p90 || !(*p50 > 0) || *p90 < *p50) return std::nullopt;
  return (*p90 - *p50) / (kP90Sigmas * *p50);
}


std::string value_text(CompareMetric metric, std::optional<double> v) {
  switch (metric) {
    case CompareMetric::PromptTokS: return format_prompt_rate(v);
    case CompareMetric::TotalTokS:
    case CompareMetric::PerRequestTokS: return format_tok_s(v);
    case CompareMetric::PrefillTtft:
    case CompareMetric::DecodeTtft: return format_latency_ms(v);
  }
  return std::string(kDash);
}

CompareValue prefill_value(const PrefillRow* row, CompareMetric metric) {
  CompareValue v;
  v.text = std::string(kDash);
  if (!row) return v;
  v.present = true;
  v.status = row->status;
  if (has_numbers(row->status)) v.value = metric == CompareMetric::PromptTokS ? row->prompt_tok_s : row->ttft_ms;
  // One request per pass: no interval of its own; its passes' spread, when repeated, holds for
  // TTFT too (TTFT = prompt tokens ÷ prompt tok/s).
  if (v.value) v.between = prefill_noise(*row).between;
  v.text = v.value ? value_text(metric, v.value) : status_label(row->status);
  return v;
}

CompareValue decode_value(const DecodeCell* cell, CompareMetric metric) {
  CompareValue v;
  v.text = std::string(kDash);
  if (!cell) return v;
  v.present = true;
  v.status = cell->status;
  if (has_numbers(cell->status)) {
    v.value = metric == CompareMetric::TotalTokS        ? cell->total_tok_s
              : metric == CompareMetric::PerRequestTokS ? cell->per_request_tok_s
                                                        : cell->ttft_ms;
    const CellNoise noise = decode_noise(*cell);
    const bool rate = metric != CompareMetric::DecodeTtft;
    // tok/s: the cell's noise as every printer shows it; per-request tok/s shares the total's
    // relative noise. Cells without an interval (older files) and TTFT: from their spread.
    v.within = rate && noise.within ? *noise.within : kZ95 * decode_standard_error(*cell, metric);
    if (rate) v.between = noise.between;
  }
  v.text = v.value ? value_text(metric, v.value) : status_label(cell->status);
  if (v.value && metric != CompareMetric::DecodeTtft)
    v.text = format_tok_s_noise(v.value, decode_noise(*cell));
  return v;
}

std::string run_engine(const EngineInfo& e) {
  std::string s = e.kind;
  if (!e.version.empty()) s += (s.empty() ? "" : " ") + e.version;
  if (!e.quantization.empty()) s += (s.empty() ? "" : " · ") + e.quantization;
  return s;
}

// "Max output: A 8,192 · B 4,096" when the runs disagree.
void add_difference(std::vector<std::string>& out, const std::string& name, const std::vector<std::string>& values,
                    const std::vector<CompareRun>& runs) {
  if (std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == values.front(); })) return;
  std::string line = name + " —";
  for (size_t i = 0; i < values.size(); ++i)
    line += fmt::format("{} {}: {}", i ? ";" : "", runs[i].letter, values[i].empty() ? tr("(none)") : values[i]);
  out.push_back(line);
}

std::string list_text(const std::vector<int64_t>& v, bool tokens) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ",") + (tokens ? format_tokens(x) : fmt::format("{}", x));
  return s;
}

}  // namespace

std::string metric_title(CompareMetric metric) {
  switch (metric) {
    case CompareMetric::PromptTokS: return tr("prompt tok/s");
    case CompareMetric::PrefillTtft: return tr("TTFT");
    case CompareMetric::TotalTokS: return tr("output tok/s (all requests)");
    case CompareMetric::PerRequestTokS: return tr("per request tok/s");
    case CompareMetric::DecodeTtft: return tr("TTFT (warm prefix)");
  }
  return "";
}

std::string metric_key(CompareMetric metric) {
  switch (metric) {
    case CompareMetric::PromptTokS: return "prompt_tok_s";
    case CompareMetric::PrefillTtft: return "ttft_ms";
    case CompareMetric::TotalTokS: return "total_tok_s";
    case CompareMetric::PerRequestTokS: return "per_request_tok_s";
    case CompareMetric::DecodeTtft: return "ttft_ms";
  }
  return "";
}

double between_run_floor(CompareMetric metric) {
  return metric == CompareMetric::TotalTokS || metric == CompareMetric::PerRequestTokS ? kBetweenRunNoiseFloor
                                                                                       : kLatencyNoiseFloor;
}

bool higher_is_better(CompareMetric metric) {
  return metric == CompareMetric::PromptTokS || metric == CompareMetric::TotalTokS ||
         metric == CompareMetric::PerRequestTokS;
}

double decode_standard_error(const DecodeCell& cell, CompareMetric metric) {
  // A cell that carries its 95% interval (batch means over its window): that interval's standard
  // error, relative to the value.
  if (metric == CompareMetric::TotalTokS || metric == CompareMetric::PerRequestTokS) {
    const bool total = metric == CompareMetric::TotalTokS;
    const std::optional<double> value = total ? cell.total_tok_s : cell.per_request_tok_s;
    const std::optional<double> ci = total ? cell.total_tok_s_ci : cell.per_request_tok_s_ci;
    if (value && ci && *value > 0) return *ci / kZ95 / *value;
  }
  if (metric == CompareMetric::TotalTokS || metric == CompareMetric::PerRequestTokS) {
    auto s = relative_sigma(cell.tbt_ms, cell.tbt_p90_ms);
    if (!s || !cell.output_tokens || cell.concurrency <= 0) return 0;
    double n = static_cast<double>(*cell.output_tokens) / static_cast<double>(cell.concurrency);
    return n >= 1 ? *s / std::sqrt(n) : *s;
  }
  if (metric == CompareMetric::DecodeTtft) {
    auto s = relative_sigma(cell.ttft_ms, cell.ttft_p90_ms);
    if (!s) return 0;
    double n = static_cast<double>(cell.requests_started ? *cell.requests_started : cell.concurrency);
    return kMedianFactor * *s / std::sqrt(std::max(1.0, n));
  }
  return 0;
}

void judge(const CompareValue& base, CompareValue& v, CompareMetric metric) {
  v.ratio.reset();
  v.ratio_low.reset();
  v.ratio_high.reset();
  v.threshold = 0;
  v.significant = false;
  v.change = Change::None;
  v.ratio_text.clear();
  if (!base.value || !v.value || !(*base.value > 0) || !(*v.value > 0)) return;
  const double ratio = *v.value / *base.value;
  const double floor = between_run_floor(metric);
  // Both measurements' own noise and how far each could land in another run, combined as
  // independent errors of log(B) and log(A).
  const double h = std::sqrt(base.within * base.within + v.within * v.within +
                             std::pow(base.between.value_or(floor), 2) + std::pow(v.between.value_or(floor), 2));
  v.ratio = ratio;
  v.threshold = h;
  v.ratio_low = ratio * std::exp(-h);
  v.ratio_high = ratio * std::exp(h);
  v.significant = *v.ratio_low > 1 || *v.ratio_high < 1;
  if (!v.significant) {
    v.change = Change::Same;
    v.ratio_text = "≈";
  } else {
    v.change = (ratio > 1) == higher_is_better(metric) ? Change::Better : Change::Worse;
    v.ratio_text = format_ratio(ratio);
  }
}

CompareModel build_compare_model(const std::vector<RunResult>& runs, const std::vector<std::string>& labels) {
  CompareModel m;
  for (size_t i = 0; i < runs.size(); ++i) {
    ReportModel rm = build_report_model(runs[i]);
    CompareRun run;
    run.letter = letter(i);
    run.label = i < labels.size() && !labels[i].empty() ? labels[i] : runs[i].run_id;
    run.title = rm.title;
    run.engine = run_engine(runs[i].engine);
    run.kind = rm.kind_label;
    run.run_id = runs[i].run_id;
    run.started_at = runs[i].started_at;
    m.runs.push_back(std::move(run));
  }

  // Settings that change what a cell means.
  auto collect = [&](auto get) {
    std::vector<std::string> v;
    for (const auto& r : runs) v.push_back(get(r));
    return v;
  };
  add_difference(m.setting_differences, tr("Max output"),
                 collect([](const RunResult& r) { return format_thousands(r.settings.max_output_tokens); }), m.runs);
  add_difference(m.setting_differences, tr("Time per measurement"),
                 collect([](const RunResult& r) { return measurement_time_text(r.settings); }), m.runs);
  add_difference(m.setting_differences, tr("API"), collect([](const RunResult& r) { return r.settings.api; }), m.runs);
  add_difference(m.setting_differences, tr("Prompts"),
                 collect([](const RunResult& r) { return prompt_source_text(r.settings); }), m.runs);
  add_difference(m.setting_differences, tr("Contexts"),
                 collect([](const RunResult& r) { return list_text(r.settings.contexts, true); }), m.runs);
  add_difference(m.setting_differences, tr("Concurrency"),
                 collect([](const RunResult& r) { return list_text(r.settings.concurrency, false); }), m.runs);
  add_difference(m.setting_differences, tr("Model"), collect([](const RunResult& r) { return r.engine.model_path.empty() ? r.engine.model : r.engine.model_path; }), m.runs);
  add_difference(m.setting_differences, tr("Engine"),
                 collect([](const RunResult& r) { return r.engine.kind + " " + r.engine.version; }), m.runs);
  add_difference(m.setting_differences, tr("Quantization"),
                 collect([](const RunResult& r) { return r.engine.quantization; }), m.runs);
  add_difference(m.setting_differences, tr("KV cache"), collect([](const RunResult& r) {
                   auto kv = r.settings.kv_capacity_override ? r.settings.kv_capacity_override
                                                             : r.engine.kv_capacity_tokens;
                   return kv ? trf("{} tokens", format_thousands(*kv)) : std::string();
                 }),
                 m.runs);
  add_difference(m.setting_differences, tr("Hardware"), collect([](const RunResult& r) {
                   return build_report_model(r).hardware_name;
                 }),
                 m.runs);
  add_difference(m.setting_differences, tr("Kind"), collect([](const RunResult& r) { return r.kind; }), m.runs);

  // Prefill rows.
  m.prefill.title = tr("Prefill");
  m.prefill.prefill = true;
  m.prefill.metrics = {CompareMetric::PromptTokS, CompareMetric::PrefillTtft};
  std::map<int64_t, std::vector<const PrefillRow*>> prefill_rows;
  for (size_t i = 0; i < runs.size(); ++i)
    for (const auto& p : runs[i].prefill) {
      auto& slot = prefill_rows[p.context];
      slot.resize(runs.size(), nullptr);
      slot[i] = &p;
    }
  for (auto& [context, per_run] : prefill_rows) {
    per_run.resize(runs.size(), nullptr);
    CompareRow row;
    row.context = context;
    for (CompareMetric metric : m.prefill.metrics) {
      std::vector<CompareValue> values;
      for (const PrefillRow* p : per_run) values.push_back(prefill_value(p, metric));
      for (size_t i = 1; i < values.size(); ++i) judge(values[0], values[i], metric);
      row.values.push_back(std::move(values));
    }
    m.prefill.rows.push_back(std::move(row));
  }

  // Decode cells.
  m.decode.title = tr("Sustained decode");
  m.decode.metrics = {CompareMetric::TotalTokS, CompareMetric::PerRequestTokS, CompareMetric::DecodeTtft};
  std::map<std::pair<int64_t, int64_t>, std::vector<const DecodeCell*>> cells;
  for (size_t i = 0; i < runs.size(); ++i)
    for (const auto& c : runs[i].decode) {
      auto& slot = cells[{c.context, c.concurrency}];
      slot.resize(runs.size(), nullptr);
      slot[i] = &c;
    }
  for (auto& [key, per_run] : cells) {
    per_run.resize(runs.size(), nullptr);
    CompareRow row;
    row.context = key.first;
    row.concurrency = key.second;
    for (CompareMetric metric : m.decode.metrics) {
      std::vector<CompareValue> values;
      for (const DecodeCell* c : per_run) values.push_back(decode_value(c, metric));
      for (size_t i = 1; i < values.size(); ++i) judge(values[0], values[i], metric);
      row.values.push_back(std::move(values));
    }
    m.decode.rows.push_back(std::move(row));
  }

  // Summaries over total tok/s.
  for (size_t i = 1; i < runs.size(); ++i) {
    CompareSummary s;
    s.letter = m.runs[i].letter;
    double log_sum = 0;
    for (const auto& row : m.decode.rows) {
      const CompareValue& a = row.values[0][0];
      const CompareValue& b = row.values[0][i];
      if (a.value && !b.value) ++s.only_first;
      if (!a.value && b.value) ++s.only_this;
      if (!b.ratio) continue;
      ++s.cells;
      log_sum += std::log(*b.ratio);
      s.better += b.change == Change::Better;
      s.worse += b.change == Change::Worse;
      s.same += b.change == Change::Same;
    }
    if (s.cells > 0) s.geo_mean = std::exp(log_sum / s.cells);
    m.summaries.push_back(s);
  }

  m.noise_rule = trf(
      "Ratios are each run's value ÷ run A's. A difference counts only when the ratio's 95% interval excludes 1; "
      "\"≈\" marks one within noise. The interval is ratio × e^±h, h = √(within_A² + within_B² + between_A² + "
      "between_B²), each a relative half-width: within, the cell's own 95% interval (decode tok/s: its window's "
      "batch-means interval, the ± shown; TTFT: from the spread of its requests; prefill: none); between, how far "
      "another run could land: half the range of the cell's --repeat passes, else a floor of {:.0f}% for decode "
      "tok/s and {:.0f}% for TTFT and prefill, measured between repeated runs on one host. For tok/s higher is "
      "better; for TTFT lower is better.",
      kBetweenRunNoiseFloor * 100, kLatencyNoiseFloor * 100);
  return m;
}

}  // namespace sm::report
