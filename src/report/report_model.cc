#include "report/report_model.h"

#include "report/report_capacity.h"
#include "report/report_energy.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

#include "core/units.h"
#include "metrics/cell_metrics.h"
#include "report/cell_format.h"
#include "report/cell_noise.h"
#include "report/connection_model.h"
#include "report/report_sections.h"
#include "report/telemetry_model.h"
#include "report/translate.h"

namespace sm::report {

namespace section {

std::string kind_display(const std::string& kind) {
  if (kind.empty() || kind == "measured") return tr("Measured");
  if (kind == "predicted") return tr("Predicted");
  if (kind == "simulated") return tr("Simulated");
  return sentence_case(kind);
}

std::vector<int64_t> sorted_unique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::vector<int64_t> matrix_contexts(const RunResult& r) {
  std::vector<int64_t> v = r.settings.contexts;
  for (const auto& c : r.decode) v.push_back(c.context);
  return sorted_unique(v);
}

std::vector<int64_t> matrix_concurrency(const RunResult& r) {
  std::vector<int64_t> v = r.settings.concurrency;
  for (const auto& c : r.decode) v.push_back(c.concurrency);
  return sorted_unique(v);
}

std::vector<int64_t> prefill_contexts(const RunResult& r) {
  std::vector<int64_t> v = r.settings.prefill_contexts;
  for (const auto& p : r.prefill) v.push_back(p.context);
  return sorted_unique(v);
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

std::string range_text(const std::vector<int64_t>& v, bool tokens) {
  auto f = [&](int64_t x) { return tokens ? format_tokens(x) : fmt::format("{}", x); };
  if (v.empty()) return "";
  if (v.size() == 1) return f(v.front());
  return f(v.front()) + "–" + f(v.back());
}

std::string ms_or_dash(const std::optional<double>& ms) { return ms ? format_whole(*ms) + " ms" : "–"; }

std::string matrix_line(const RunResult& r) {
  auto contexts = matrix_contexts(r);
  auto conc = matrix_concurrency(r);
  auto prefill = prefill_contexts(r);
  std::vector<std::string> parts;
  if (!contexts.empty() || !conc.empty()) {
    const std::string context_part = contexts.size() == 1 ? trf("{} context ({})", contexts.size(), range_text(contexts, true))
                                                          : trf("{} contexts ({})", contexts.size(), range_text(contexts, true));
    const std::string conc_part = conc.size() == 1 ? trf("{} concurrency level ({})", conc.size(), range_text(conc, false))
                                                   : trf("{} concurrency levels ({})", conc.size(), range_text(conc, false));
    parts.push_back(context_part + " × " + conc_part);
  }
  if (!prefill.empty()) {
    std::vector<std::string> labels;
    for (int64_t p : prefill) labels.push_back(format_tokens(p));
    parts.push_back(trf("prefill at {}", join(labels, ", ")));
  }
  return join(parts, " · ");
}

}  // namespace section

using namespace section;

std::string column_heading(const Matrix& matrix, size_t j) {
  return j < matrix.column_labels.size() ? matrix.column_labels[j] : fmt::format("{}", matrix.concurrency[j]);
}

std::string detail_text(const Matrix& matrix, const MatrixCell& cell) {
  if (cell.detail.empty() || matrix.detail_label.empty()) return cell.detail;
  bool attached = matrix.detail_label.starts_with("/");
  return cell.detail + (attached ? "" : " ") + matrix.detail_label;
}

std::string cell_name(int64_t context, int64_t concurrency) {
  return fmt::format("{} × {}", format_tokens(context), concurrency);
}

std::string status_note(CellStatus status) {
  switch (status) {
    case CellStatus::OverCapacity:
      return tr("Over capacity: not run because this many requests at this context would exceed the server's KV cache.");
    case CellStatus::BeyondModel:
      return tr("Beyond the model: not run because context + max output would exceed the model's context length.");
    case CellStatus::Error: return tr("Error: the cell ran and failed; the reasons are listed under Warnings.");
    case CellStatus::Interrupted: return tr("Interrupted: stopped while running; its numbers are partial.");
    case CellStatus::Pending: return tr("Pending: planned but not measured yet.");
    case CellStatus::Valid: break;
  }
  return "";
}

ReportModel build_report_model(const RunResult& r) {
  ReportModel m;
  m.model_name = model_display_name(r.engine);
  m.hardware_name = hardware_display_name(r.hardware);
  m.title = trf("{} on {}", m.model_name, m.hardware_name);
  m.engine_line = join({r.engine.kind, r.engine.version == "predicted" ? std::string() : r.engine.version,
                        r.engine.quantization},
                       " · ");
  m.matrix_line = matrix_line(r);
  if (!r.submitted_by.empty()) m.by_line = trf("by {}", r.submitted_by);
  m.tool_line = r.tool_version.empty() ? "speedmatrix" : "speedmatrix v" + r.tool_version;
  m.kind_label = kind_display(r.kind);
  m.headline = headline_figures(r);
  m.facts = {hardware_facts(r.hardware), engine_facts(r.engine), run_facts(r)};
  if (auto connection = connection_facts(r)) m.facts.push_back(std::move(*connection));
  if (r.client_hardware) m.facts.push_back(client_facts(*r.client_hardware));
  add_telemetry_facts(m.facts, r);
  m.launch_command = r.launch_command;
  m.notes = r.notes;
  m.prefill = prefill_lines(r);
  m.decode_total = build_matrix(r, MatrixKind::Total);
  m.decode_per_request = build_matrix(r, MatrixKind::PerRequest);
  m.decode_efficiency = build_matrix(r, MatrixKind::Efficiency);
  m.capacity = capacity_matrix(r);
  m.energy = energy_matrix(r);
  m.capacity_cost = capacity_cost_matrix(r);

  auto present = statuses(r);
  for (CellStatus s : {CellStatus::OverCapacity, CellStatus::BeyondModel, CellStatus::Error, CellStatus::Interrupted,
                       CellStatus::Pending})
    if (present.count(s)) m.decode_notes.push_back(status_note(s));
  if (present.count(CellStatus::OverCapacity)) {
    std::optional<int64_t> kv = r.settings.kv_capacity_override ? r.settings.kv_capacity_override
                                                                : r.engine.kv_capacity_tokens;
    if (kv)
      m.decode_notes.push_back(trf(
          "A cell needs requests × (context + {} max output) tokens of KV cache; this server holds {} tokens.",
          format_thousands(r.settings.max_output_tokens), format_thousands(*kv)));
  }
  if (ran_any(r)) {
    if (r.engine.kind == "llamacpp")
      // llama.cpp keeps its prompt cache per slot: the warm-up fills one slot, so the other
      // streams of a cell with several read the prompt cold and their TTFT includes a prefill.
      m.decode_notes.push_back(
          tr("TTFT is measured after the benchmark warms the prompt into one of llama.cpp's slots; llama.cpp caches "
             "prompts per slot, so in a cell with more than one request the other streams read the prompt cold and "
             "its TTFT includes prefill (compare the prefill rows)."));
    else
      m.decode_notes.push_back(
          tr("TTFT is measured after the benchmark warms the server's prompt cache, so it mostly excludes prefill."));
  }
  bool noisy = false;
  for (const auto& row : m.decode_total.cells)
    for (const auto& cell : row) noisy |= cell.noisy;
  if (noisy)
    m.decode_notes.push_back(trf("± marks a cell whose noise is wider than {:.0f}% of its figure: the wider of its "
                                 "window's 95% interval and, with --repeat, half the range of its passes.",
                                 kShowNoiseAbove * 100));

  m.measurements = measurements_table(r);
  m.measurements_caption = tr("Latencies are medians. Output tok/s counts output tokens across all simultaneous "
                              "requests (a prefill row shows its prompt tok/s there).");
  std::set<CellStatus> all = present;
  for (const auto& p : r.prefill) all.insert(p.status);
  for (CellStatus s : {CellStatus::OverCapacity, CellStatus::BeyondModel, CellStatus::Error, CellStatus::Interrupted,
                       CellStatus::Pending})
    if (all.count(s)) m.measurement_notes.push_back(status_note(s));

  m.findings = findings(r);
  add_retrieval_findings(r, m.findings);
  m.retrieval = retrieval_table(r);
  m.retrieval_caption = retrieval_caption(r);
  add_slo_findings(r, m.findings);
  m.slo = slo_table(r);
  m.slo_caption = slo_caption(r);
  add_mixed_prefill_findings(r, m.findings);
  add_speculation_findings(r, m.findings);
  add_sessions_findings(r, m.findings);
  m.speculation = speculation_table(r);
  if (!m.speculation.rows.empty()) m.speculation_caption = speculation_caption(r);
  m.reasoning = reasoning_table(r);
  if (!m.reasoning.rows.empty()) m.reasoning_caption = reasoning_caption(r);
  m.answer_lengths = answer_lengths_table(r);
  if (!m.answer_lengths.rows.empty()) m.answer_lengths_caption = answer_lengths_caption(r);
  m.mixed_prefill = mixed_prefill_table(r);
  m.mixed_prefill_caption = mixed_prefill_caption(r);
  m.sessions = sessions_table(r);
  m.sessions_caption = sessions_caption(r);
  bool warned = std::any_of(m.findings.begin(), m.findings.end(),
                            [](const Finding& f) { return f.severity != Severity::Info; });
  if (!warned) m.checks_passed = checks_passed(r);
  m.definitions = definitions(r);
  m.token_counts = token_count_text(r);
  m.footer = footer(r);
  return m;
}

}  // namespace sm::report
