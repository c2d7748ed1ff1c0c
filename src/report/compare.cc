// The comparison printers: terminal, Markdown and HTML views of one CompareModel.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/compare_model.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/pareto_chart.h"
#include "report/markdown_text.h"
#include "report/report.h"
#include "report/term_text.h"
#include "report/translate.h"

namespace sm::report {

namespace {

// One cell of a comparison table.
struct CompareColumnCell {
  std::string text;                         ///< as shown
  Change change = Change::None;             ///< ratio cells: how the run did against A
  bool measured = true;                     ///< value cells: false when the run has no number here
  CellStatus status = CellStatus::Valid;    ///< value cells: the row's or cell's status in that run
};

// One column of a comparison table; columns of one metric share a group.
struct CompareColumn {
  std::string group;              ///< metric title; empty for the key columns
  std::string head;               ///< "A", "B", "B/A", "Context"
  bool ratio = false;             ///< cells are ratios (styled by change)
  std::vector<CompareColumnCell> cells;  ///< one per row
};

// How a table is laid out: terminals get short headers and statuses.
enum class Layout { Wide, Narrow };

std::vector<CompareColumn> key_columns(const CompareSection& s, Layout layout) {
  CompareColumn context{"", tr("Context"), false, {}};
  CompareColumn requests{"", layout == Layout::Narrow ? tr("Reqs") : tr("Requests"), false, {}};
  for (const auto& row : s.rows) {
    context.cells.push_back({format_tokens(row.context)});
    requests.cells.push_back({fmt::format("{}", row.concurrency)});
  }
  if (s.prefill) return {context};
  return {context, requests};
}

// The columns of one metric: every run's value, and each later run's ratio right after it.
std::vector<CompareColumn> metric_columns(const CompareSection& s, size_t metric_index, const CompareModel& m,
                                   Layout layout) {
  std::vector<CompareColumn> cols;
  std::string group = metric_title(s.metrics[metric_index]);
  for (size_t run = 0; run < m.runs.size(); ++run) {
    CompareColumn value{group, m.runs[run].letter, false, {}};
    CompareColumn ratio{group, m.runs[run].letter + "/" + m.runs[0].letter, true, {}};
    for (const auto& row : s.rows) {
      const CompareValue& v = row.values[metric_index][run];
      std::string text = layout == Layout::Narrow && v.present && !v.value ? status_short(v.status) : v.text;
      value.cells.push_back({text, Change::None, v.value.has_value(), v.status});
      ratio.cells.push_back({v.ratio_text, v.change});
    }
    cols.push_back(std::move(value));
    if (run > 0) cols.push_back(std::move(ratio));
  }
  return cols;
}

std::string summary_text(const CompareSummary& s, const CompareModel& m) {
  std::string out = trf("{} vs {}: ", s.letter, m.runs[0].letter);
  // With no cell beyond noise, the mean of the ratios is noise too: it must not read as a change.
  const std::string mean = s.geo_mean ? (s.better + s.worse == 0 ? "≈" : "") + format_ratio(*s.geo_mean) : "";
  if (!s.geo_mean) {
    out += tr("no decode cell with output tok/s in both");
  } else if (s.cells == 1) {
    out += trf("output tok/s {} (geometric mean over {} cell both ran) · {} faster · {} slower · {} within noise",
               mean, s.cells, s.better, s.worse, s.same);
  } else {
    out += trf("output tok/s {} (geometric mean over {} cells both ran) · {} faster · {} slower · {} within noise",
               mean, s.cells, s.better, s.worse, s.same);
  }
  if (s.only_first) out += trf(" · {} ran only in {}", s.only_first, m.runs[0].letter);
  if (s.only_this) out += trf(" · {} ran only in {}", s.only_this, s.letter);
  return out;
}

std::string run_line(const CompareRun& r) {
  std::vector<std::string> parts{r.title};
  if (!r.engine.empty()) parts.push_back(r.engine);
  parts.push_back(r.kind);
  if (!r.started_at.empty()) parts.push_back(r.started_at);
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return out;
}

// ---- terminal -------------------------------------------------------------------------------

std::string styled(const Ansi& ansi, const CompareColumn& c, const CompareColumnCell& cell, std::string padded) {
  if (c.ratio) {
    switch (cell.change) {
      case Change::Better: return ansi.green(padded);
      case Change::Worse: return ansi.red(padded);
      case Change::Same: return ansi.dim(padded);
      case Change::None: return padded;
    }
  }
  if (cell.measured) return padded;
  return cell.status == CellStatus::Error ? ansi.red(padded) : ansi.dim(padded);
}

size_t column_width(const CompareColumn& c) {
  size_t w = display_width(c.head);
  for (const auto& cell : c.cells) w = std::max(w, display_width(cell.text));
  return w;
}

std::string term_table(const std::vector<CompareColumn>& cols, size_t rows, const Ansi& ansi) {
  std::vector<size_t> widths;
  for (const auto& c : cols) widths.push_back(column_width(c) + 2);
  // Group titles over their columns.
  std::string groups, heads;
  for (size_t i = 0; i < cols.size(); ++i) {
    bool starts = !cols[i].group.empty() && (i == 0 || cols[i - 1].group != cols[i].group);
    size_t span = 0;
    if (starts)
      for (size_t j = i; j < cols.size() && cols[j].group == cols[i].group; ++j) span += widths[j];
    if (starts) groups += pad_right("  " + cols[i].group, span);
    else if (cols[i].group.empty()) groups += std::string(widths[i], ' ');
    heads += pad_left(cols[i].head, widths[i]);
  }
  while (!groups.empty() && groups.back() == ' ') groups.pop_back();
  std::string out = ansi.bold(groups) + "\n" + ansi.bold(heads) + "\n";
  for (size_t r = 0; r < rows; ++r) {
    std::string line;
    for (size_t i = 0; i < cols.size(); ++i)
      line += styled(ansi, cols[i], cols[i].cells[r], pad_left(cols[i].cells[r].text, widths[i]));
    out += line + "\n";
  }
  return out;
}

std::string term_section(const CompareSection& s, const CompareModel& m, const Ansi& ansi, size_t width) {
  if (s.rows.empty()) return "";
  std::string out = ansi.bold(s.title) + "\n";
  // Rows no run measured (over capacity everywhere, say) carry nothing to compare here.
  CompareSection shown = s;
  shown.rows.clear();
  for (const auto& row : s.rows)
    if (std::any_of(row.values[0].begin(), row.values[0].end(), [](const CompareValue& v) { return v.value.has_value(); }))
      shown.rows.push_back(row);
  size_t left_out = s.rows.size() - shown.rows.size();
  std::vector<CompareColumn> keys = key_columns(shown, Layout::Narrow);
  size_t key_width = 0;
  for (const auto& c : keys) key_width += column_width(c) + 2;
  // As many metrics per table as fit the width.
  size_t metric = 0;
  while (metric < s.metrics.size()) {
    std::vector<CompareColumn> cols = keys;
    size_t used = key_width;
    bool first = true;
    while (metric < s.metrics.size()) {
      std::vector<CompareColumn> group = metric_columns(shown, metric, m, Layout::Narrow);
      size_t w = 0;
      for (const auto& c : group) w += column_width(c) + 2;
      if (!first && used + w > width) break;
      cols.insert(cols.end(), group.begin(), group.end());
      used += w;
      first = false;
      ++metric;
    }
    out += term_table(cols, shown.rows.size(), ansi);
    if (metric < s.metrics.size()) out += "\n";
  }
  if (left_out > 0)
    out += ansi.dim(wrap(fmt::format("{} {} no run measured (over capacity, beyond the model, …) left out; --format html "
                                     "or md shows them.",
                                     left_out, left_out == 1 ? "cell" : "cells"),
                         width));
  return out;
}

std::string render_term(const CompareModel& m, const RenderOptions& options) {
  Ansi ansi(options.color);
  size_t width = static_cast<size_t>(std::max(40, options.width_columns));
  std::string out = ansi.bold(fmt::format("Compare · {} runs", m.runs.size())) + "\n" +
                    wrap("Ratios are to run A; ≈ marks a difference within noise (the cells' own and run to run).", width);
  size_t label_w = 0;
  for (const auto& r : m.runs) label_w = std::max(label_w, display_width(r.label));
  for (const auto& r : m.runs) {
    std::string first = "  " + ansi.bold(r.letter) + "  " + pad_right(r.label, label_w) + "  ";
    std::string text = wrap_block(run_line(r), width, std::string(display_width(first), ' '));
    out += first + text.substr(display_width(first));
  }
  if (!m.summaries.empty()) {
    out += "\n";
    for (const auto& s : m.summaries) out += wrap_block(summary_text(s, m), width, "  ");
  }
  if (!m.setting_differences.empty()) {
    out += "\n" + ansi.yellow("Settings that differ") + "\n";
    for (const auto& d : m.setting_differences) out += wrap_block(d, width, "  ");
  }
  if (!m.prefill.rows.empty()) out += "\n" + term_section(m.prefill, m, ansi, width);
  if (!m.decode.rows.empty()) out += "\n" + term_section(m.decode, m, ansi, width);
  out += "\n" + ansi.dim(wrap(m.noise_rule, width));
  return out;
}

// ---- Markdown -------------------------------------------------------------------------------

Table md_section_table(const CompareSection& s, const CompareModel& m) {
  std::vector<CompareColumn> cols = key_columns(s, Layout::Wide);
  for (size_t i = 0; i < s.metrics.size(); ++i) {
    auto group = metric_columns(s, i, m, Layout::Wide);
    cols.insert(cols.end(), group.begin(), group.end());
  }
  Table t;
  for (const auto& c : cols) {
    t.header.push_back(c.group.empty() ? c.head : c.group + " " + c.head);
    t.align.push_back(Align::Right);
  }
  for (size_t r = 0; r < s.rows.size(); ++r) {
    TableRow row;
    for (const auto& c : cols) row.cells.push_back(c.cells[r].text);
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string render_markdown(const CompareModel& m) {
  std::string out = fmt::format("# Compare {} runs\n\n", m.runs.size());
  Table runs{{"Run", "Name", "What", "Run id"}, {Align::Left, Align::Left, Align::Left, Align::Left}, {}};
  for (const auto& r : m.runs) runs.rows.push_back({{r.letter, r.label, run_line(r), r.run_id}});
  out += md_table(runs);
  if (!m.summaries.empty()) {
    out += "\n";
    for (const auto& s : m.summaries) out += "- " + md_escape(summary_text(s, m)) + "\n";
  }
  if (!m.setting_differences.empty()) {
    out += "\n**Settings that differ**\n\n";
    for (const auto& d : m.setting_differences) out += "- " + md_escape(d) + "\n";
  }
  for (const CompareSection* s : {&m.prefill, &m.decode}) {
    if (s->rows.empty()) continue;
    out += "\n## " + s->title + "\n\n" + md_table(md_section_table(*s, m));
  }
  out += "\n---\n\n" + md_escape(m.noise_rule) + "\n";
  return out;
}

// ---- HTML -----------------------------------------------------------------------------------


std::string change_class(Change c) {
  switch (c) {
    case Change::Better: return "ratio up";
    case Change::Worse: return "ratio down";
    case Change::Same: return "ratio same";
    case Change::None: return "ratio";
  }
  return "ratio";
}

std::string html_section_table(const CompareSection& s, const CompareModel& m) {
  std::vector<CompareColumn> cols = key_columns(s, Layout::Wide);
  for (size_t i = 0; i < s.metrics.size(); ++i) {
    auto group = metric_columns(s, i, m, Layout::Wide);
    cols.insert(cols.end(), group.begin(), group.end());
  }
  std::string t = "<table class=\"data compare\">\n<thead><tr>";
  for (size_t i = 0; i < cols.size();) {
    size_t span = 1;
    while (i + span < cols.size() && !cols[i].group.empty() && cols[i + span].group == cols[i].group) ++span;
    if (cols[i].group.empty()) t += "<th rowspan=\"2\" scope=\"col\">" + html_escape(cols[i].head) + "</th>";
    else t += fmt::format("<th colspan=\"{}\" scope=\"colgroup\" class=\"group\">{}</th>", span, html_escape(cols[i].group));
    i += span;
  }
  t += "</tr>\n<tr>";
  for (const auto& c : cols)
    if (!c.group.empty()) t += "<th scope=\"col\">" + html_escape(c.head) + "</th>";
  t += "</tr></thead>\n<tbody>\n";
  for (size_t r = 0; r < s.rows.size(); ++r) {
    t += "<tr>";
    for (const auto& c : cols) {
      const CompareColumnCell& cell = c.cells[r];
      std::string cls = c.ratio ? change_class(cell.change) : cell.measured ? "" : "notrun";
      t += (cls.empty() ? "<td>" : "<td class=\"" + cls + "\">") + html_escape(cell.text) + "</td>";
    }
    t += "</tr>\n";
  }
  return html_scroll(t + "</tbody>\n</table>\n");
}

// The output tok/s ratios of one later run as a matrix, coloured by size and direction.
std::string html_ratio_matrix(const CompareModel& m, size_t run) {
  std::vector<int64_t> contexts, conc;
  for (const auto& row : m.decode.rows) {
    contexts.push_back(row.context);
    conc.push_back(row.concurrency);
  }
  std::sort(contexts.begin(), contexts.end());
  contexts.erase(std::unique(contexts.begin(), contexts.end()), contexts.end());
  std::sort(conc.begin(), conc.end());
  conc.erase(std::unique(conc.begin(), conc.end()), conc.end());
  std::string t = "<table class=\"heatmap ratios\">\n<thead><tr><th scope=\"col\">" + html_escape(tr("Context")) + "</th>";
  for (int64_t n : conc) t += fmt::format("<th scope=\"col\">{}</th>", n);
  t += "</tr></thead>\n<tbody>\n";
  for (int64_t context : contexts) {
    t += "<tr><th scope=\"row\">" + html_escape(format_tokens(context)) + "</th>";
    for (int64_t n : conc) {
      auto it = std::find_if(m.decode.rows.begin(), m.decode.rows.end(),
                             [&](const CompareRow& r) { return r.context == context && r.concurrency == n; });
      if (it == m.decode.rows.end()) {
        t += "<td class=\"notrun\">—</td>";
        continue;
      }
      const CompareValue& a = it->values[0][0];
      const CompareValue& b = it->values[0][run];
      if (!b.ratio) {
        // One side has no number: say which ran.
        std::string shown = b.text, detail;
        if (a.value && !b.value) detail = m.runs[0].letter + ": " + a.text;
        if (!a.value && b.value) {
          shown = trf("only {}", m.runs[run].letter);
          detail = b.text;
        }
        if (!a.value && !b.value && !b.present) shown = a.text;
        t += "<td class=\"notrun\">" + html_escape(shown) +
             (detail.empty() ? "" : "<span class=\"d\">" + html_escape(detail) + "</span>") + "</td>";
        continue;
      }
      double strength = std::min(1.0, std::abs(std::log2(*b.ratio)));
      std::string cls = b.change == Change::Better ? "up" : b.change == Change::Worse ? "down" : "same";
      t += fmt::format("<td class=\"{}\" style=\"--r:{:.3f}\"><span class=\"v\">{}</span><span class=\"d\">{} → {}</span></td>",
                       cls, strength, html_escape(b.ratio_text), html_escape(a.text), html_escape(b.text));
    }
    t += "</tr>\n";
  }
  return html_scroll(t + "</tbody>\n</table>\n");
}

// Extra rules for the ratio matrix, added to the shared style sheet.
constexpr std::string_view kCompareStyle =
    "table.ratios td.up { background: color-mix(in srgb, var(--good) calc(15% + var(--r) * 55%), var(--card)); }\n"
    "table.ratios td.down { background: color-mix(in srgb, var(--bad) calc(15% + var(--r) * 55%), var(--card)); }\n"
    "table.ratios td.same { background: var(--card); color: var(--muted); }\n"
    "table.compare th.group { text-align: center; border-bottom: 2px solid var(--line); }\n"
    "table.compare td.notrun { color: var(--muted); }\n"
    "table.ratios td.notrun .d { display: block; font-size: .78rem; }\n"
    "td.wrap { white-space: normal; }\n";

// The runs' Pareto charts overlaid (report/pareto_chart.h); "" when no run has a cell that counts.
std::string pareto_html(const CompareModel& m, const std::vector<RunResult>& runs) {
  std::vector<std::string> names;
  for (const auto& r : m.runs) names.push_back(r.letter + ": " + r.label);
  const std::string figure = pareto_figure_html(pareto_overlay_chart(runs, names));
  if (figure.empty()) return "";
  return "<section id=\"pareto\">\n<h2>" + html_escape(tr("Total against per-user speed")) + "</h2>\n" + figure +
         "</section>\n";
}

std::string render_html(const CompareModel& m, const std::vector<RunResult>& results) {
  std::string title = m.runs.size() == 2 ? trf("{} vs {}", m.runs[0].label, m.runs[1].label) : trf("{} runs", m.runs.size());
  // The subtitle's text is put in as written (the catalogs are trusted, like their ".html" keys).
  std::string body = "<header class=\"top\">\n<p class=\"eyebrow\">" + html_escape(tr("Speed test matrix · compare")) +
                     "</p>\n<h1 id=\"title\">" + html_escape(title) + "</h1>\n<p class=\"subtitle\">" +
                     tr("Every cell side by side; ratios to run A; ≈ marks a difference within noise: the cells' own and run to run.") +
                     "</p>\n</header>\n";
  body += "<section id=\"runs\">\n<h2>" + html_escape(tr("Runs")) + "</h2>\n";
  std::string runs = "<table class=\"data\">\n<thead><tr><th class=\"l\" scope=\"col\">" + html_escape(tr("Run")) +
                     "</th><th class=\"l\" scope=\"col\">" + html_escape(tr("Name")) + "</th><th class=\"l\" scope=\"col\">" +
                     html_escape(tr("What")) + "</th><th class=\"l\" scope=\"col\">" + html_escape(tr("Run id")) +
                     "</th></tr></thead>\n<tbody>\n";
  for (const auto& r : m.runs)
    runs += "<tr><td class=\"l\"><strong>" + html_escape(r.letter) + "</strong></td><td class=\"l\">" + html_escape(r.label) +
            "</td><td class=\"l wrap\">" + html_escape(run_line(r)) + "</td><td class=\"l\">" + html_escape(r.run_id) + "</td></tr>\n";
  body += html_scroll(runs + "</tbody>\n</table>\n");
  if (!m.summaries.empty()) {
    body += "<ul class=\"findings\">\n";
    for (const auto& s : m.summaries) body += "<li class=\"info\">" + html_escape(summary_text(s, m)) + "</li>\n";
    body += "</ul>\n";
  }
  if (!m.setting_differences.empty()) {
    body += "<h3>" + html_escape(tr("Settings that differ")) + "</h3>\n<ul class=\"findings\">\n";
    for (const auto& d : m.setting_differences) body += "<li class=\"warning\">" + html_escape(d) + "</li>\n";
    body += "</ul>\n";
  }
  body += "</section>\n";
  body += pareto_html(m, results);
  if (!m.decode.rows.empty()) {
    for (size_t run = 1; run < m.runs.size(); ++run) {
      body += fmt::format("<section id=\"ratios-{}\">\n<h2>{}</h2>\n<p class=\"caption\">{}</p>\n", html_escape(m.runs[run].letter),
                          html_escape(trf("{} ÷ {}: output tok/s (all requests)", m.runs[run].letter, m.runs[0].letter)),
                          html_escape(trf("rows are context length, columns are simultaneous requests; each cell: ratio, then {} → {}",
                                          m.runs[0].letter, m.runs[run].letter)));
      body += html_ratio_matrix(m, run) + "</section>\n";
    }
  }
  if (!m.prefill.rows.empty())
    body += "<section id=\"prefill\">\n<h2>" + html_escape(tr("Prefill")) + "</h2>\n" + html_section_table(m.prefill, m) +
            "</section>\n";
  if (!m.decode.rows.empty())
    body += "<section id=\"decode\">\n<h2>" + html_escape(tr("Sustained decode")) + "</h2>\n" +
            html_section_table(m.decode, m) + "</section>\n";
  body += "<section id=\"noise\">\n<h2>" + html_escape(tr("Noise")) + "</h2>\n<p class=\"note\">" + html_escape(m.noise_rule) +
          "</p>\n</section>\n";
  body += "<footer>" + html_escape(tr("speedmatrix compare · a self-contained page: no scripts, nothing loaded from the network.")) +
          "</footer>\n";
  return html_document(trf("Speed test matrix — compare {}", title), body, kCompareStyle);
}

}  // namespace

}  // namespace sm::report

namespace sm {

std::string render_compare(const std::vector<RunResult>& runs, ReportFormat format, const CompareOptions& options) {
  report::TranslationScope language(options.render.translate);
  report::CompareModel model = report::build_compare_model(runs, options.labels);
  switch (format) {
    case ReportFormat::Term: return report::render_term(model, options.render);
    case ReportFormat::Html: return report::render_html(model, runs);
    case ReportFormat::Markdown:
    case ReportFormat::Csv: return report::render_markdown(model);
  }
  return report::render_markdown(model);
}

std::string render_compare_json(const std::vector<RunResult>& runs, const CompareOptions& options) {
  report::TranslationScope language(options.render.translate);
  return report::compare_json(report::build_compare_model(runs, options.labels));
}

}  // namespace sm
