// The Markdown report: the title, the warnings and the users-at-a-speed table first (as the HTML
// report's first screen), then every section of the seed page, the per-request matrix, the
// definitions and where token counts came from.
#include <fmt/format.h>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/markdown_text.h"
#include "report/printers.h"
#include "report/translate.h"

namespace sm::report {

namespace {

Table matrix_table(const Matrix& m) {
  Table t;
  t.header.push_back("Context");
  t.align.push_back(Align::Right);
  for (size_t j = 0; j < m.concurrency.size(); ++j) {
    t.header.push_back(column_heading(m, j));
    t.align.push_back(Align::Right);
  }
  for (size_t i = 0; i < m.contexts.size(); ++i) {
    TableRow row;
    row.cells.push_back(format_tokens(m.contexts[i]));
    for (const auto& cell : m.cells[i])
      row.cells.push_back((cell.detail.empty() ? cell.value : cell.value + " · " + detail_text(m, cell)) +
                          (cell.status == CellStatus::Interrupted ? " (partial)" : ""));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string md_section(std::string_view title) { return fmt::format("\n## {}\n\n", title); }

}  // namespace

std::string markdown_fact_groups(const std::vector<FactGroup>& groups) {
  std::string out;
  for (const auto& group : groups) {
    if (group.facts.empty()) continue;
    out += md_section(group.title);
    for (const auto& f : group.facts) out += "- **" + md_escape(f.label) + ":** " + md_escape(f.value) + "\n";
  }
  return out;
}

std::string render_markdown(const ReportModel& m) {
  std::string out = "# " + md_escape(m.title) + "\n\n";
  std::vector<std::string> lines;
  lines.push_back("Speed test matrix" + (m.engine_line.empty() ? "" : " · " + md_escape(m.engine_line)));
  if (!m.matrix_line.empty()) lines.push_back(md_escape(m.matrix_line));
  std::string provenance = m.by_line.empty() ? "" : md_escape(m.by_line) + " · ";
  lines.push_back(provenance + md_escape(m.tool_line) + " · **" + m.kind_label + "**");
  for (size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() ? "  \n" : "\n");
  if (!m.notes.empty()) out += "\n> " + md_escape(m.notes) + "\n";

  if (!m.findings.empty()) {
    out += md_section("Warnings");
    for (const auto& f : m.findings) {
      std::string_view tag = f.severity == Severity::Error ? "**Error:** " : f.severity == Severity::Warning
                                                                               ? "**Warning:** "
                                                                               : "";
      out += "- " + std::string(tag) + md_escape(f.text) + "\n";
    }
  }

  // The answer people buy on first, as on the HTML report's first screen: users at a speed.
  if (!m.decode_total.cells.empty() && !m.capacity.cells.empty())
    out += md_section(m.capacity.title) + md_escape(m.capacity.caption) + "; " + md_escape(m.capacity.detail_name) +
           " under each value\n\n" + md_table(matrix_table(m.capacity));

  out += markdown_fact_groups(m.facts);
  if (!m.launch_command.empty()) out += md_section("Launch command") + md_code_block(m.launch_command, "sh");

  if (!m.prefill.empty()) {
    out += md_section("Prefill") + "prompt tok/s by context length\n\n";
    Table t{{"Context", "Prompt tok/s", "Time to first token"}, {Align::Right, Align::Right, Align::Right}, {}};
    for (const auto& p : m.prefill)
      t.rows.push_back({{p.context_text, p.rate, p.ttft.empty() ? (p.note.empty() ? "" : p.note) : p.ttft}, p.status});
    out += md_table(t);
  }

  if (!m.decode_total.cells.empty()) {
    out += md_section(m.decode_total.title) + md_escape(m.decode_total.caption) + "\n\n" + md_table(matrix_table(m.decode_total));
    for (const auto& note : m.decode_notes) out += "\n" + md_escape(note) + "\n";
    out += md_section("Per request decode") + md_escape(m.decode_per_request.caption) + "\n\n" +
           md_table(matrix_table(m.decode_per_request));
    if (!m.decode_efficiency.cells.empty())
      out += md_section(m.decode_efficiency.title) + md_escape(m.decode_efficiency.caption) + ", " +
             md_escape(m.decode_efficiency.detail_name) + " under each value\n\n" +
             md_table(matrix_table(m.decode_efficiency));
    for (const Matrix* e : {&m.energy, &m.capacity_cost})
      if (!e->cells.empty())
        out += md_section(e->title) + md_escape(e->caption) + "; " + md_escape(e->detail_name) +
               " under each value\n\n" + md_table(matrix_table(*e));
  }

  out += md_section("All measurements") + md_escape(m.measurements_caption) + "\n\n" + md_table(m.measurements);
  if (!m.measurement_notes.empty()) out += "\n";
  for (const auto& note : m.measurement_notes) out += md_escape(note) + "\n";

  if (!m.retrieval.rows.empty())
    out += md_section(tr("Retrieval check")) + md_escape(m.retrieval_caption) + "\n\n" + md_table(m.retrieval);
  if (!m.slo.rows.empty())
    out += md_section(tr("SLO search")) + md_escape(m.slo_caption) + "\n\n" + md_table(m.slo);
  if (!m.speculation.rows.empty())
    out += md_section(tr("Speculative decoding")) + md_escape(m.speculation_caption) + "\n\n" + md_table(m.speculation);
  if (!m.reasoning.rows.empty())
    out += md_section(tr("Reasoning")) + md_escape(m.reasoning_caption) + "\n\n" + md_table(m.reasoning);
  if (!m.answer_lengths.rows.empty())
    out += md_section(tr("Answer lengths")) + md_escape(m.answer_lengths_caption) + "\n\n" + md_table(m.answer_lengths);
  if (!m.mixed_prefill.rows.empty())
    out += md_section(tr("Mixed prefill")) + md_escape(m.mixed_prefill_caption) + "\n\n" + md_table(m.mixed_prefill);
  if (!m.sessions_caption.empty())
    out += md_section(tr("Sessions")) + md_escape(m.sessions_caption) + "\n\n" +
           (m.sessions.rows.empty() ? std::string() : md_table(m.sessions));

  out += md_section("What the numbers mean");
  for (const auto& d : m.definitions) out += "- **" + md_escape(d.term) + ":** " + md_escape(d.meaning) + "\n";
  if (!m.token_counts.empty()) out += "\n" + md_escape(m.token_counts) + "\n";
  if (!m.checks_passed.empty()) {
    out += md_section("Checks");
    for (const auto& c : m.checks_passed) out += "- " + md_escape(c) + "\n";
  }
  out += "\n---\n\n" + md_escape(m.footer) + "\n";
  return out;
}

}  // namespace sm::report
