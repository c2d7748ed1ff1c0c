// The HTML report: the seed page's sections in its order, as real tables, with the decode matrix
// as a heatmap, SVG charts, warnings and definitions. One file; no script; nothing fetched.
#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/cell_noise.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/mixed_prefill_chart.h"
#include "report/pareto_chart.h"
#include "report/printers.h"
#include "report/svg_chart.h"
#include "report/telemetry_chart.h"
#include "report/translate.h"

namespace sm::report {

namespace {

// Heat above which a cell's background is dark enough for light text.
constexpr double kHotHeat = 0.55;


std::string status_class(CellStatus s) {
  switch (s) {
    case CellStatus::Valid: return "";
    case CellStatus::Error: return "error";
    case CellStatus::Interrupted: return "partial";
    default: return "notrun";
  }
}

// "Warnings", or "Notes and warnings" when the list holds notes too (or only notes: "Notes").
std::string findings_title(const ReportModel& m) {
  bool notes = false, warnings = false;
  for (const auto& f : m.findings) (f.severity == Severity::Info ? notes : warnings) = true;
  if (notes && warnings) return tr("Notes and warnings");
  return notes ? tr("Notes") : tr("Warnings");
}

// The headline figures in a strip above the fold, before the metadata cards.
std::string headline_html(const ReportModel& m) {
  if (m.headline.empty()) return "";
  std::string out = "<section class=\"headline\" id=\"headline\" aria-label=\"" + html_escape(tr("Headline figures")) + "\">\n";
  for (const auto& h : m.headline)
    out += fmt::format("<div><span class=\"label\">{}</span><strong>{}</strong><span class=\"detail\">{}</span></div>\n",
                       html_escape(h.label), html_escape(h.value), html_escape(h.detail));
  return out + "</section>\n";
}

std::string header_html(const ReportModel& m, const RunResult& r, bool timeline) {
  std::string out = "<header class=\"top\">\n<p class=\"eyebrow\">" + html_escape(tr("Speed test matrix")) + "</p>\n";
  out += "<h1 id=\"title\">" +
         trf("{0} <span class=\"on\">on</span> {1}", html_escape(m.model_name), html_escape(m.hardware_name)) + "</h1>\n";
  if (!m.engine_line.empty()) out += "<p class=\"subtitle\"><strong>" + html_escape(m.engine_line) + "</strong></p>\n";
  if (!m.matrix_line.empty()) out += "<p class=\"subtitle\">" + html_escape(m.matrix_line) + "</p>\n";
  std::string provenance = m.by_line.empty() ? "" : html_escape(m.by_line) + " · ";
  std::string kind = r.kind.empty() ? "measured" : r.kind;
  out += "<p class=\"subtitle\">" + provenance + html_escape(m.tool_line) + " <span class=\"badge " + html_escape(kind) + "\">" +
         html_escape(m.kind_label) + "</span></p>\n";
  if (!m.notes.empty()) out += "<p class=\"note\">" + html_escape(m.notes) + "</p>\n";
  out += "<nav class=\"toc\" aria-label=\"" + html_escape(tr("Sections")) + "\">";
  std::vector<std::pair<std::string, std::string>> links;
  if (!m.capacity.cells.empty()) links.push_back({"capacity", m.capacity.title});
  if (!m.findings.empty()) links.push_back({"warnings", findings_title(m)});
  links.push_back({"hardware", tr("Hardware")});
  if (!m.prefill.empty()) links.push_back({"prefill", tr("Prefill")});
  if (!m.decode_total.cells.empty()) links.push_back({"decode", tr("Sustained decode")});
  if (!m.decode_efficiency.cells.empty()) links.push_back({"efficiency", tr("Tokens per joule")});
  if (!m.energy.cells.empty()) links.push_back({"energy", m.energy.title});
  if (timeline) links.push_back({"telemetry", tr("Over time")});
  links.push_back({"measurements", tr("All measurements")});
  if (!m.retrieval.rows.empty()) links.push_back({"retrieval", tr("Retrieval check")});
  if (!m.slo.rows.empty()) links.push_back({"slo", tr("SLO search")});
  if (!m.mixed_prefill.rows.empty()) links.push_back({"mixed-prefill", tr("Mixed prefill")});
  if (!m.sessions_caption.empty()) links.push_back({"sessions", tr("Sessions")});
  if (!m.speculation.rows.empty()) links.push_back({"speculation", tr("Speculative decoding")});
  if (!m.reasoning.rows.empty()) links.push_back({"reasoning", tr("Reasoning")});
  if (!m.answer_lengths.rows.empty()) links.push_back({"answer-lengths", tr("Answer lengths")});
  links.push_back({"definitions", tr("Definitions")});
  for (const auto& [id, text] : links) out += "<a href=\"#" + id + "\">" + html_escape(text) + "</a>";
  out += "</nav>\n</header>\n";
  return out;
}

std::string findings_html(const ReportModel& m) {
  if (!m.findings.empty()) {
    std::string out = "<section id=\"warnings\">\n<h2>" + html_escape(findings_title(m)) + "</h2>\n<ul class=\"findings\">\n";
    for (const auto& f : m.findings) {
      std::string_view cls = f.severity == Severity::Error ? "error" : f.severity == Severity::Warning ? "warning" : "info";
      std::string tag = f.severity == Severity::Error ? tr("Error") : f.severity == Severity::Warning ? tr("Warning") : tr("Note");
      out += fmt::format("<li class=\"{}\"><span class=\"tag\">{}</span>{}</li>\n", cls, html_escape(tag), html_escape(f.text));
    }
    return out + "</ul>\n</section>\n";
  }
  return "";
}

std::string checks_html(const ReportModel& m) {
  if (m.checks_passed.empty()) return "";
  std::string out = "<section id=\"checks\">\n<h2>" + html_escape(tr("Checks")) + "</h2>\n<ul class=\"findings\">\n";
  const std::string passed = html_escape(tr("Passed"));
  for (const auto& c : m.checks_passed) out += "<li class=\"ok\"><span class=\"tag\">" + passed + "</span>" + html_escape(c) + "</li>\n";
  return out + "</ul>\n</section>\n";
}

std::string launch_html(const ReportModel& m) {
  if (m.launch_command.empty()) return "";
  return "<section id=\"launch-command\">\n<h2>" + html_escape(tr("Launch command")) + "</h2>\n<pre><code>" +
         html_escape(m.launch_command) +
         "</code></pre>\n</section>\n";
}

std::string figure(const LineChart& chart, std::string_view id) {
  return fmt::format("<figure id=\"{}\">\n<figcaption>{}</figcaption>\n{}{}</figure>\n", id, html_escape(chart.title),
                     render_svg(chart), render_legend(chart));
}

std::string prefill_html(const ReportModel& m) {
  if (m.prefill.empty()) return "";
  std::string out = "<section id=\"prefill\">\n<h2>" + html_escape(tr("Prefill")) + "</h2>\n<p class=\"caption\">" +
                    html_escape(tr("prompt tok/s by context length")) + "</p>\n";
  std::string table = "<table class=\"prefill\" id=\"prefill-table\">\n<thead><tr><th class=\"l\" scope=\"col\">" +
                      html_escape(tr("Context")) + "</th><th scope=\"col\">" + html_escape(tr("Prompt tok/s")) +
                      "</th><th scope=\"col\">" + html_escape(tr("TTFT")) + "</th></tr></thead>\n<tbody>\n";
  for (const auto& p : m.prefill) {
    std::string title = p.note.empty() ? "" : " title=\"" + html_escape(p.note) + "\"";
    table += fmt::format("<tr class=\"{}\"{}><td class=\"l\">{}</td><td class=\"rate\">{}</td><td>{}</td></tr>\n",
                         status_class(p.status), title, html_escape(p.context_text), html_escape(p.rate), html_escape(p.ttft));
  }
  table += "</tbody>\n</table>\n";
  out += "<div class=\"prefill-grid\">\n" + html_scroll(table);

  LineChart chart;
  chart.title = tr("Prompt speed and time to first token by context length");
  chart.x_label = tr("prompt tokens");
  chart.y_label = tr("prompt tok/s");
  chart.y2_label = tr("TTFT (ms)");
  chart.x_format = [](double v) { return format_tokens(static_cast<int64_t>(v)); };
  ChartSeries rate{tr("prompt tok/s (left axis)"), {}, 0, false, false};
  ChartSeries ttft{tr("TTFT, ms (right axis)"), {}, 1, true, true};
  for (const auto& p : m.prefill) {
    chart.x_ticks.push_back(static_cast<double>(p.context));
    if (!p.rate_tok_s) continue;
    rate.points.push_back({static_cast<double>(p.context), *p.rate_tok_s,
                           trf("{}: {} prompt tok/s", p.context_text, p.rate)});
    if (p.ttft_ms)
      ttft.points.push_back({static_cast<double>(p.context), *p.ttft_ms, fmt::format("{}: {}", p.context_text, p.ttft)});
  }
  chart.series = {rate, ttft};
  if (!rate.points.empty()) out += figure(chart, "prefill-chart");
  return out + "</div>\n</section>\n";
}

std::string heatmap_html(const Matrix& m, std::string_view id) {
  std::string t = fmt::format("<table class=\"heatmap\" id=\"{}\">\n<thead><tr><th scope=\"col\">{}</th>", id,
                              html_escape(tr("Context")));
  for (size_t j = 0; j < m.concurrency.size(); ++j)
    t += "<th scope=\"col\">" + html_escape(column_heading(m, j)) + "</th>";
  t += "</tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < m.contexts.size(); ++i) {
    t += "<tr><th scope=\"row\">" + html_escape(format_tokens(m.contexts[i])) + "</th>";
    for (const auto& cell : m.cells[i]) {
      std::vector<std::string> classes;
      if (!cell.present) classes.push_back("notrun");
      else if (std::string c = status_class(cell.status); !c.empty()) classes.push_back(c);
      if (cell.heat && *cell.heat >= kHotHeat) classes.push_back("hot");
      if (cell.noisy) classes.push_back("noisy");
      std::string attrs;
      if (!classes.empty()) {
        std::string joined;
        for (const auto& c : classes) joined += (joined.empty() ? "" : " ") + c;
        attrs += " class=\"" + joined + "\"";
      }
      if (cell.heat) attrs += fmt::format(" style=\"--heat:{:.3f}\"", *cell.heat);
      if (!cell.note.empty()) attrs += " title=\"" + html_escape(cell.note) + "\"";
      t += "<td" + attrs + ">";
      if (cell.value_num) {
        t += "<span class=\"v\">" + html_escape(cell.value) + "</span>";
        if (!cell.detail.empty()) t += "<span class=\"d\">" + html_escape(detail_text(m, cell)) + "</span>";
        if (cell.status == CellStatus::Interrupted) t += "<span class=\"d\">" + html_escape(tr("partial")) + "</span>";
      } else {
        t += html_escape(cell.value);
      }
      t += "</td>";
    }
    t += "</tr>\n";
  }
  return html_scroll(t + "</tbody>\n</table>\n");
}

LineChart concurrency_chart(const RunResult& r, const Matrix& m, bool total) {
  LineChart chart;
  chart.title = total ? tr("Output tok/s (all requests) by simultaneous requests")
                      : tr("Tok/s each request sees by simultaneous requests");
  chart.x_label = tr("simultaneous requests");
  chart.y_label = total ? tr("output tok/s (all requests)") : tr("tok/s per request");
  for (int64_t n : m.concurrency) chart.x_ticks.push_back(static_cast<double>(n));
  chart.x_format = [](double v) { return fmt::format("{}", static_cast<int64_t>(v)); };
  std::map<int64_t, std::vector<const DecodeCell*>> by_context;
  for (const auto& c : r.decode) by_context[c.context].push_back(&c);
  int color = 0;
  for (int64_t context : m.contexts) {
    ChartSeries s{context_label(context), {}, color++, false, false};
    auto cells = by_context[context];
    std::sort(cells.begin(), cells.end(), [](auto* a, auto* b) { return a->concurrency < b->concurrency; });
    for (const DecodeCell* c : cells) {
      std::optional<double> v = total ? c->total_tok_s : c->per_request_tok_s;
      if (!has_numbers(c->status) || !v) continue;
      s.points.push_back({static_cast<double>(c->concurrency), *v,
                          c->concurrency == 1
                              ? trf("{} context × {} request: {} tok/s", format_tokens(context), c->concurrency, format_tok_s(v))
                              : trf("{} context × {} requests: {} tok/s", format_tokens(context), c->concurrency,
                                    format_tok_s(v))});
    }
    if (!s.points.empty()) chart.series.push_back(std::move(s));
  }
  return chart;
}

std::string decode_html(const ReportModel& m, const RunResult& r) {
  if (m.decode_total.cells.empty()) return "";
  bool noisy = false;
  for (const auto* matrix : {&m.decode_total, &m.decode_per_request})
    for (const auto& row : matrix->cells)
      for (const auto& cell : row) noisy |= cell.noisy;
  std::string out = "<section id=\"decode\">\n<h2>" + html_escape(tr("Sustained decode")) + "</h2>\n<p class=\"caption\">" +
                    html_escape(trf("{}, {} under each value", m.decode_total.caption, m.decode_total.detail_name)) + "</p>\n";
  out += "<div class=\"legend-bar\" aria-hidden=\"true\"><span>" + html_escape(tr("slower")) +
         "</span><span class=\"ramp\"></span><span>" +
         html_escape(tr("faster")) + "</span><span class=\"hatch\"></span><span>" + html_escape(tr("not run")) + "</span>" +
         (noisy ? "<span class=\"noisy\"></span><span>" + html_escape(trf("noise wider than {:.0f}% (± shown)", kShowNoiseAbove * 100)) +
                      "</span>"
                : std::string()) +
         "</div>\n";
  out += heatmap_html(m.decode_total, "decode-matrix");
  for (const auto& note : m.decode_notes) out += "<p class=\"note\">" + html_escape(note) + "</p>\n";
  LineChart total = concurrency_chart(r, m.decode_total, true);
  LineChart per = concurrency_chart(r, m.decode_total, false);
  if (!total.series.empty())
    out += "<div class=\"charts\">\n" + figure(total, "total-chart") + figure(per, "per-request-chart") + "</div>\n";
  out += "<h3 id=\"per-request\">" + html_escape(tr("Per request")) + "</h3>\n<p class=\"caption\">" +
         html_escape(m.decode_per_request.caption) +
         "</p>\n";
  out += heatmap_html(m.decode_per_request, "per-request-matrix");
  if (!m.decode_efficiency.cells.empty()) {
    out += "<h3 id=\"efficiency\">" + html_escape(tr("Tokens per joule")) + "</h3>\n<p class=\"caption\">" +
           html_escape(trf("{}, {} under each value", m.decode_efficiency.caption, m.decode_efficiency.detail_name)) + "</p>\n";
    out += heatmap_html(m.decode_efficiency, "efficiency-matrix");
  }
  if (!m.energy.cells.empty()) {
    out += "<h3 id=\"energy\">" + html_escape(m.energy.title) + "</h3>\n<p class=\"caption\">" +
           html_escape(trf("{}; {} under each value", m.energy.caption, m.energy.detail_name)) + "</p>\n";
    out += heatmap_html(m.energy, "energy-matrix");
  }
  if (!m.capacity_cost.cells.empty()) {
    out += "<h3 id=\"capacity-cost\">" + html_escape(m.capacity_cost.title) + "</h3>\n<p class=\"caption\">" +
           html_escape(trf("{}; {} under each value", m.capacity_cost.caption, m.capacity_cost.detail_name)) + "</p>\n";
    out += heatmap_html(m.capacity_cost, "capacity-cost-matrix");
  }
  return out + "</section>\n";
}

// The first screen after the headline: users at each speed and the Pareto chart, side by side
// where the page is wide enough; "" when the run has neither.
std::string capacity_html(const ReportModel& m, const RunResult& r) {
  const std::string chart = pareto_figure_html(pareto_chart(r));
  if (m.capacity.cells.empty() && chart.empty()) return "";
  std::string out = "<section id=\"capacity\">\n<div class=\"charts\">\n";
  if (!m.capacity.cells.empty())
    out += "<div>\n<h2>" + html_escape(m.capacity.title) + "</h2>\n<p class=\"caption\">" +
           html_escape(trf("{}; {} under each value", m.capacity.caption, m.capacity.detail_name)) + "</p>\n" +
           heatmap_html(m.capacity, "capacity-matrix") + "</div>\n";
  return out + chart + "</div>\n</section>\n";
}

// The time chart of the run's telemetry series; "" without a series or with nothing to draw.
std::string telemetry_html(const std::string& chart) {
  if (chart.empty()) return "";
  return "<section id=\"telemetry\">\n<h2>" + html_escape(tr("Over time")) + "</h2>\n" + chart + "</section>\n";
}

std::string measurements_html(const ReportModel& m) {
  std::string out = "<section id=\"measurements\">\n<h2>" + html_escape(tr("All measurements")) + "</h2>\n<p class=\"caption\">" +
                    html_escape(m.measurements_caption) + "</p>\n" + data_table_html(m.measurements, "measurements-table");
  for (const auto& note : m.measurement_notes) out += "<p class=\"note\">" + html_escape(note) + "</p>\n";
  return out + "</section>\n";
}

// The SLO search per context; "" without --slo.
std::string slo_html(const ReportModel& m) {
  if (m.slo.rows.empty()) return "";
  return "<section id=\"slo\">\n<h2>" + html_escape(tr("SLO search")) + "</h2>\n<p class=\"caption\">" +
         html_escape(m.slo_caption) + "</p>\n" + data_table_html(m.slo, "slo-table") + "</section>\n";
}

// Speculative decoding per cell; "" where the server did not speculate.
std::string speculation_html(const ReportModel& m) {
  if (m.speculation.rows.empty()) return "";
  return "<section id=\"speculation\">\n<h2>" + html_escape(tr("Speculative decoding")) + "</h2>\n<p class=\"caption\">" +
         html_escape(m.speculation_caption) + "</p>\n" + data_table_html(m.speculation, "speculation-table") +
         "</section>\n";
}

// Reasoning and the first answer token per cell; "" where no request streamed reasoning.
std::string reasoning_html(const ReportModel& m) {
  if (m.reasoning.rows.empty()) return "";
  return "<section id=\"reasoning\">\n<h2>" + html_escape(tr("Reasoning")) + "</h2>\n<p class=\"caption\">" +
         html_escape(m.reasoning_caption) + "</p>\n" + data_table_html(m.reasoning, "reasoning-table") + "</section>\n";
}

// The answers' lengths per cell; "" without --natural-eos.
std::string answer_lengths_html(const ReportModel& m) {
  if (m.answer_lengths.rows.empty()) return "";
  return "<section id=\"answer-lengths\">\n<h2>" + html_escape(tr("Answer lengths")) + "</h2>\n<p class=\"caption\">" +
         html_escape(m.answer_lengths_caption) + "</p>\n" + data_table_html(m.answer_lengths, "answer-lengths-table") +
         "</section>\n";
}

// The mixed-prefill rows and each one's timeline; "" without --mixed-prefill.
// The sessions workload's rows per turn; "" without --sessions / --trace.
std::string sessions_html(const ReportModel& m) {
  if (m.sessions_caption.empty()) return "";
  return "<section id=\"sessions\">\n<h2>" + html_escape(tr("Sessions")) + "</h2>\n<p class=\"caption\">" +
         html_escape(m.sessions_caption) + "</p>\n" +
         (m.sessions.rows.empty() ? std::string() : data_table_html(m.sessions, "sessions-table")) + "</section>\n";
}

std::string mixed_prefill_html(const ReportModel& m, const RunResult& r) {
  if (m.mixed_prefill.rows.empty()) return "";
  std::string out = "<section id=\"mixed-prefill\">\n<h2>" + html_escape(tr("Mixed prefill")) +
                    "</h2>\n<p class=\"caption\">" + html_escape(m.mixed_prefill_caption) + "</p>\n" +
                    data_table_html(m.mixed_prefill, "mixed-prefill-table") + "<div class=\"charts\">\n";
  for (const auto& row : r.mixed_prefill) {
    const LineChart chart = mixed_prefill_chart(row);
    if (!chart.series.empty())
      out += figure(chart, fmt::format("mixed-prefill-chart-{}", row.context));
  }
  return out + "</div>\n</section>\n";
}

// The retrieval check's verdict per context; "" when none ran.
std::string retrieval_html(const ReportModel& m) {
  if (m.retrieval.rows.empty()) return "";
  return "<section id=\"retrieval\">\n<h2>" + html_escape(tr("Retrieval check")) + "</h2>\n<p class=\"caption\">" +
         html_escape(m.retrieval_caption) + "</p>\n" + data_table_html(m.retrieval, "retrieval-table") + "</section>\n";
}

std::string definitions_html(const ReportModel& m) {
  std::string out = "<section id=\"definitions\">\n<h2>" + html_escape(tr("What the numbers mean")) + "</h2>\n<dl class=\"defs\">\n";
  for (const auto& d : m.definitions) out += "<dt>" + html_escape(d.term) + "</dt><dd>" + html_escape(d.meaning) + "</dd>\n";
  out += "</dl>\n";
  if (!m.token_counts.empty()) out += "<p id=\"token-counts\">" + html_escape(m.token_counts) + "</p>\n";
  return out + "</section>\n";
}

}  // namespace

// A Table as an HTML data table (each row's status as its class), scrollable on narrow screens.
std::string data_table_html(const Table& t, std::string_view id) {
  std::string table = fmt::format("<table class=\"data\" id=\"{}\">\n<thead><tr>", id);
  for (size_t i = 0; i < t.header.size(); ++i)
    table += fmt::format("<th scope=\"col\"{}>{}</th>", t.align[i] == Align::Left ? " class=\"l\"" : "",
                         html_escape(t.header[i]));
  table += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    std::string cls = status_class(row.status);
    table += cls.empty() ? "<tr>" : "<tr class=\"" + cls + "\">";
    for (size_t i = 0; i < row.cells.size(); ++i)
      table += fmt::format("<td{}>{}</td>", t.align[i] == Align::Left ? " class=\"l\"" : "", html_escape(row.cells[i]));
    table += "</tr>\n";
  }
  table += "</tbody>\n</table>\n";
  return html_scroll(table);
}

std::string html_fact_groups(const std::vector<FactGroup>& groups) {
  std::string out = "<div class=\"facts\">\n";
  for (const auto& g : groups) {
    out += "<section id=\"" + g.id + "\">\n<h2>" + html_escape(g.title) + "</h2>\n<dl class=\"kv\">\n";
    if (g.facts.empty()) out += "<dt>—</dt><dd>" + html_escape(tr("not recorded")) + "</dd>\n";
    for (const auto& f : g.facts) out += "<dt>" + html_escape(f.label) + "</dt><dd>" + html_escape(f.value) + "</dd>\n";
    out += "</dl>\n</section>\n";
  }
  return out + "</div>\n";
}

std::string render_html(const RunResult& r, const ReportModel& m, const TelemetrySeries* series) {
  const std::string chart = series ? render_timeline_html(build_timeline(*series, r)) : std::string();
  std::string body;
  body += header_html(m, r, !chart.empty());
  body += headline_html(m);
  body += capacity_html(m, r);
  body += findings_html(m);
  body += html_fact_groups(m.facts);
  body += launch_html(m);
  body += prefill_html(m);
  body += decode_html(m, r);
  body += speculation_html(m);
  body += reasoning_html(m);
  body += answer_lengths_html(m);
  body += telemetry_html(chart);
  body += measurements_html(m);
  body += retrieval_html(m);
  body += slo_html(m);
  body += mixed_prefill_html(m, r);
  body += sessions_html(m);
  body += checks_html(m);
  body += definitions_html(m);
  body += "<footer>" + html_escape(trf("{} · a self-contained page: no scripts, nothing loaded from the network.", m.footer)) +
          "</footer>\n";
  return html_document(trf("Speed test matrix — {}", m.title), body, chart.empty() ? "" : timeline_style());
}

}  // namespace sm::report
