#include "report/sweep_report.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/units.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/connection_model.h"
#include "report/markdown_text.h"
#include "report/output_check_model.h"
#include "report/printers.h"
#include "report/report_model.h"
#include "report/report_sections.h"
#include "report/term_text.h"
#include "report/translate.h"

namespace sm::report {

namespace {

std::string rate_text(double rps) { return fmt::format("{:.3g}", rps); }
std::string ms_text(const std::optional<Percentiles>& p, double Percentiles::*field) {
  if (!p) return "—";
  const double v = (*p).*field;
  return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
}
std::string triple(const std::optional<Percentiles>& p) {
  if (!p) return "—";
  return ms_text(p, &Percentiles::p50) + " / " + ms_text(p, &Percentiles::p90) + " / " + ms_text(p, &Percentiles::p99);
}
std::string opt_rate(const std::optional<double>& v) { return v ? rate_text(*v) : "—"; }
std::string percent(const std::optional<double>& v) { return v ? fmt::format("{:.0f}%", 100 * *v) : "—"; }

std::vector<const SweepPoint*> by_rate(const SweepInfo& s) {
  std::vector<const SweepPoint*> points;
  for (const auto& p : s.points) points.push_back(&p);
  std::stable_sort(points.begin(), points.end(), [](auto* a, auto* b) { return a->rate_rps < b->rate_rps; });
  return points;
}

// Round ticks from 0 past `max` (rates are arbitrary numbers, e.g. 0.95 × a measured saturation).
std::vector<double> rate_ticks(double max) {
  std::vector<double> ticks;
  if (!(max > 0)) return ticks;
  const double step = nice_step(max, 5);
  for (double t = 0; t < max + step * 0.999; t += step) ticks.push_back(t);
  return ticks;
}

std::string tick_text(double v) { return fmt::format("{:.3g}", v); }

std::string point_note(const SweepPoint& p) {
  std::string note;
  if (p.status == CellStatus::Error) note = trf("error: {}", p.error);
  else if (p.status == CellStatus::Interrupted) note = tr("interrupted (partial)");
  if (p.saturated) note += std::string(note.empty() ? "" : "; ") + tr("saturated");
  if (p.search) note += std::string(note.empty() ? "" : "; ") + tr("search");
  if (p.output_check && p.output_check->verdict != "ok")
    note += std::string(note.empty() ? "" : "; ") + (p.output_check->verdict == "loop" ? tr("output loops") : tr("output not text"));
  return note;
}

Table sweep_table(const SweepInfo& s) {
  Table t;
  t.header = {tr("Rate/s"),     tr("Offered/s"), tr("Achieved/s"), tr("Out tok/s"), tr("TTFT ms p50/p90/p99"),
              tr("TPOT ms p50/p90/p99"), tr("E2E ms p50/p90/p99"), tr("Within SLO"), tr("Goodput/s"), tr("Note")};
  t.align = {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right,
             Align::Right, Align::Right, Align::Left};
  for (const SweepPoint* p : by_rate(s)) {
    TableRow row;
    row.status = p->status;
    row.cells = {rate_text(p->rate_rps), rate_text(p->offered_rps), opt_rate(p->achieved_rps),
                 p->output_tok_s ? format_rate(*p->output_tok_s) : "—", triple(p->ttft_ms), triple(p->tpot_ms),
                 triple(p->e2e_ms), percent(p->slo_met_fraction), opt_rate(p->goodput_rps), point_note(*p)};
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string title(const RunResult& r) {
  return trf("Request-rate sweep: {} ({}{})", r.engine.model.empty() ? std::string("?") : r.engine.model,
             r.engine.kind.empty() ? tr("server") : r.engine.kind, r.kind == "simulated" ? tr(", simulated") : std::string());
}

std::string length_text(double mean, double sd) {
  return sd > 0 ? trf("{:.0f} ± {:.0f} tokens (normal, at least 1)", mean, sd) : trf("{:.0f} tokens", mean);
}

std::vector<std::string> setting_lines(const RunResult& r) {
  const SweepInfo& s = *r.sweep;
  std::vector<std::string> lines;
  lines.push_back(trf("Arrivals: {}, rates {}; each rate {}", s.arrivals, s.rates,
                      s.requests_per_rate ? trf("{} requests", *s.requests_per_rate) : trf("{:g} s of arrivals", s.window_s)));
  lines.push_back(trf("Prompt {}; output {}", length_text(s.input_len_mean, s.input_len_sd),
                      length_text(s.output_len_mean, s.output_len_sd)));
  std::string slo = "SLO: ";
  if (s.slo_ttft_ms) slo += fmt::format("TTFT ≤ {:g} ms", *s.slo_ttft_ms);
  if (s.slo_tpot_ms) slo += fmt::format("{}TPOT ≤ {:g} ms", s.slo_ttft_ms ? ", " : "", *s.slo_tpot_ms);
  if (!s.slo_ttft_ms && !s.slo_tpot_ms) slo += tr("none (every completed request counts)");
  slo += trf(", met by {:.0f}% of requests", 100 * s.slo_fraction);
  lines.push_back(slo);
  return lines;
}

// The machine and the engine measured (and how they were reached), as the matrix report shows them.
std::vector<FactGroup> sweep_fact_groups(const RunResult& r) {
  std::vector<FactGroup> groups = {section::hardware_facts(r.hardware), section::engine_facts(r.engine)};
  if (auto connection = connection_facts(r)) groups.push_back(std::move(*connection));
  if (r.client_hardware) groups.push_back(section::client_facts(*r.client_hardware));
  return groups;
}

// The best goodput as a sentence: the valid rate with the most requests per second within the
// SLO, among the rates that did not saturate the server (among all when every one did); a rate
// whose output looped or was not text does not count (report/output_check_model.h).
std::optional<std::string> goodput_line(const RunResult& r) {
  const SweepInfo& s = *r.sweep;
  const SweepPoint* best = nullptr;
  bool all_saturated = true;
  auto counts = [&](const SweepPoint& p) {
    return p.status == CellStatus::Valid && p.goodput_rps && sweep_output_stands(r, p);
  };
  for (const auto& p : s.points)
    if (counts(p) && !p.saturated) all_saturated = false;
  for (const auto& p : s.points) {
    if (!counts(p) || (p.saturated && !all_saturated)) continue;
    if (!best || *p.goodput_rps > *best->goodput_rps) best = &p;
  }
  if (!best) return std::nullopt;
  std::string line =
      s.slo_ttft_ms || s.slo_tpot_ms
          ? trf("Goodput: {:.3g} requests/s within the SLO at {:.3g} requests/s offered ({:.0f}% of requests)",
                *best->goodput_rps, best->rate_rps, 100 * best->slo_met_fraction.value_or(0))
          : trf("Goodput: {:.3g} completed requests/s at {:.3g} requests/s offered (no SLO given: every completed "
                "request counts)",
                *best->goodput_rps, best->rate_rps);
  if (all_saturated) line += tr("; every rate saturated the server");
  return line;
}

std::vector<std::string> finding_lines(const RunResult& r) {
  const SweepInfo& s = *r.sweep;
  std::vector<std::string> lines;
  if (auto goodput = goodput_line(r)) lines.push_back(std::move(*goodput));
  if (s.saturation_rps) lines.push_back(trf("Saturation rate: {:.3g} requests/s (--rates auto)", *s.saturation_rps));
  if (s.max_rate_within_slo_rps)
    lines.push_back(trf("Highest rate with {:.0f}% of requests within the SLO: {:.3g} requests/s", 100 * s.slo_fraction,
                        *s.max_rate_within_slo_rps));
  else if (!s.points.empty())
    lines.push_back(trf("No measured rate had {:.0f}% of requests within the SLO", 100 * s.slo_fraction));
  return lines;
}

// What needs a reader's eye: rates whose output looped or was not text, then the run's warnings.
std::vector<Finding> sweep_findings(const RunResult& r) {
  std::vector<Finding> out = sweep_output_findings(r);
  for (const auto& w : r.warnings) out.push_back({Severity::Warning, w});
  return out;
}

std::string finding_tag(const Finding& f) { return f.severity == Severity::Info ? tr("Note") : tr("Warning"); }

std::string render_term_sweep(const RunResult& r, const RenderOptions& options) {
  const SweepInfo& s = *r.sweep;
  Ansi ansi(options.color);
  std::string out = ansi.bold(title(r)) + "\n";
  for (const auto& l : setting_lines(r)) out += l + "\n";
  out += "\n" + term_fact_groups(sweep_fact_groups(r), ansi, static_cast<size_t>(std::max(40, options.width_columns)));
  out += "\n";
  // Two tables that each fit 80 columns: throughput, then latency (same rows, by rate).
  const Table t = sweep_table(s);
  auto print = [&](const std::vector<size_t>& columns) {
    std::vector<size_t> width;
    for (size_t c : columns) {
      size_t w = display_width(t.header[c]);
      for (const auto& row : t.rows) w = std::max(w, display_width(row.cells[c]));
      width.push_back(w);
    }
    auto line = [&](const std::vector<std::string>& cells, bool header) {
      std::string l;
      for (size_t i = 0; i < columns.size(); ++i) {
        const size_t c = columns[i];
        if (i) l += "  ";
        l += t.align[c] == Align::Right ? pad_left(cells[c], width[i]) : pad_right(cells[c], width[i]);
      }
      while (!l.empty() && l.back() == ' ') l.pop_back();
      return (header ? ansi.bold(l) : l) + "\n";
    };
    std::string text = line(t.header, true);
    for (const auto& row : t.rows) text += row.status == CellStatus::Valid ? line(row.cells, false) : ansi.dim(line(row.cells, false));
    return text;
  };
  out += print({0, 1, 2, 3, 7, 8, 9});
  out += "\nLatency in ms, from each request's intended start:\n";
  out += print({0, 4, 5, 6});
  out += "\n";
  for (const auto& l : finding_lines(r)) out += l + "\n";
  for (const auto& f : sweep_findings(r))
    out += wrap(finding_tag(f) + ": " + f.text, static_cast<size_t>(std::max(40, options.width_columns))) + "\n";
  return out;
}

std::string render_markdown_sweep(const RunResult& r) {
  std::string out = "# " + md_escape(title(r)) + "\n\n";
  for (const auto& l : setting_lines(r)) out += "- " + md_escape(l) + "\n";
  out += "\n";
  for (const auto& l : finding_lines(r)) out += "**" + md_escape(l) + "**\n\n";
  out += md_table(sweep_table(*r.sweep)) + "\n";
  for (const auto& f : sweep_findings(r)) out += "- " + md_escape(finding_tag(f)) + ": " + md_escape(f.text) + "\n";
  out += markdown_fact_groups(sweep_fact_groups(r));
  out += "\nLatencies are timed from each request's intended start (docs/METRICS.md, \"Request-rate sweeps\").\n";
  return out;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string render_csv_sweep(const RunResult& r) {
  std::string out =
      "rate_rps,search,status,window_s,requests,completed,failed,offered_rps,achieved_rps,steady_completion_rps,"
      "output_tok_s,ttft_p50_ms,ttft_p90_ms,ttft_p99_ms,tpot_p50_ms,tpot_p90_ms,tpot_p99_ms,e2e_p50_ms,e2e_p90_ms,"
      "e2e_p99_ms,slo_met_fraction,goodput_rps,saturated\n";
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
  auto pct = [](const std::optional<Percentiles>& p) {
    return p ? fmt::format("{},{},{}", p->p50, p->p90, p->p99) : std::string(",,");
  };
  for (const SweepPoint* p : by_rate(*r.sweep))
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", p->rate_rps, p->search,
                       csv_cell(std::string(to_string(p->status))), p->window_s, p->requests, p->completed, p->failed,
                       p->offered_rps, num(p->achieved_rps), num(p->steady_completion_rps), num(p->output_tok_s),
                       pct(p->ttft_ms), pct(p->tpot_ms), pct(p->e2e_ms), num(p->slo_met_fraction),
                       num(p->goodput_rps), p->saturated);
  return out;
}

LineChart rate_chart(const SweepInfo& s) {
  LineChart c;
  c.title = tr("Achieved rate and goodput against offered rate");
  c.x_label = tr("offered requests/s");
  c.x_log2 = false;
  c.x_format = tick_text;
  c.y_label = tr("requests/s");
  ChartSeries achieved{tr("achieved"), {}, 0, false, false}, goodput{tr("goodput (within SLO)"), {}, 1, false, false},
      ideal{tr("offered"), {}, 7, true, false};
  std::vector<const SweepPoint*> points = by_rate(s);
  std::stable_sort(points.begin(), points.end(), [](auto* a, auto* b) { return a->offered_rps < b->offered_rps; });
  double x_max = 0;
  for (const SweepPoint* p : points) {
    if (p->status != CellStatus::Valid) continue;
    x_max = std::max(x_max, p->offered_rps);
    ideal.points.push_back({p->offered_rps, p->offered_rps, ""});
    if (p->achieved_rps)
      achieved.points.push_back({p->offered_rps, *p->achieved_rps, trf("{:.3g}/s offered: {:.3g}/s achieved",
                                                                                p->offered_rps, *p->achieved_rps)});
    if (p->goodput_rps)
      goodput.points.push_back({p->offered_rps, *p->goodput_rps, trf("{:.3g}/s offered: goodput {:.3g}/s",
                                                                              p->offered_rps, *p->goodput_rps)});
  }
  c.x_ticks = rate_ticks(x_max);
  c.series = {ideal, achieved, goodput};
  return c;
}

std::string render_html_sweep(const RunResult& r) {
  const SweepInfo& s = *r.sweep;
  auto esc = [](std::string_view t) { return html_escape(t); };
  std::string body = "<header class=\"top\">\n<p class=\"eyebrow\">" + esc(tr("Request-rate sweep")) + "</p>\n<h1 id=\"title\">" +
                     esc(title(r)) + "</h1>\n";
  for (const auto& l : setting_lines(r)) body += "<p class=\"subtitle\">" + esc(l) + "</p>\n";
  if (!r.notes.empty()) body += "<p class=\"note\">" + esc(r.notes) + "</p>\n";
  body += "</header>\n<section id=\"findings\">\n<ul class=\"findings\">\n";
  for (const auto& l : finding_lines(r)) body += "<li class=\"ok\">" + esc(l) + "</li>\n";
  for (const auto& f : sweep_findings(r))
    body += std::string("<li class=\"") + (f.severity == Severity::Info ? "info" : "warn") + "\"><span class=\"tag\">" +
            esc(finding_tag(f)) + "</span>" + esc(f.text) + "</li>\n";
  body += "</ul>\n</section>\n";
  body += html_fact_groups(sweep_fact_groups(r));
  const LineChart latency = sweep_latency_chart(s);
  const LineChart rates = rate_chart(s);
  body += "<section id=\"charts\">\n<h2>" + esc(tr("Latency against rate")) + "</h2>\n<figure>" + render_svg(latency) +
          render_legend(latency) + "</figure>\n<h2>" + esc(tr("Throughput against rate")) + "</h2>\n<figure>" + render_svg(rates) +
          render_legend(rates) + "</figure>\n</section>\n";
  const Table t = sweep_table(s);
  std::string table = "<table class=\"sweep\" id=\"sweep-table\">\n<thead><tr>";
  for (size_t c = 0; c < t.header.size(); ++c)
    table += fmt::format("<th{} scope=\"col\">{}</th>", t.align[c] == Align::Left ? " class=\"l\"" : "", esc(t.header[c]));
  table += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    table += "<tr>";
    for (size_t c = 0; c < row.cells.size(); ++c)
      table += fmt::format("<td{}>{}</td>", t.align[c] == Align::Left ? " class=\"l\"" : "", esc(row.cells[c]));
    table += "</tr>\n";
  }
  table += "</tbody>\n</table>\n";
  // The caption's text is put in as written (the catalogs are trusted, like their ".html" keys).
  body += "<section id=\"rates\">\n<h2>" + esc(tr("Every rate")) + "</h2>\n" + html_scroll(table) + "<p class=\"caption\">" +
          tr("Latencies are timed from each request's intended start, so time spent queued — in the client or the "
             "server — counts (docs/METRICS.md, \"Request-rate sweeps\").") +
          "</p>\n</section>\n";
  return html_document(title(r), body);
}

}  // namespace

LineChart sweep_latency_chart(const SweepInfo& s) {
  LineChart c;
  c.title = tr("Latency against request rate");
  c.x_label = tr("requests/s");
  c.x_log2 = false;
  c.x_format = tick_text;
  struct Figure {
    const char* name;
    std::optional<Percentiles> SweepPoint::*field;
    double Percentiles::*q;
    int color;
    bool dashed;
    bool tpot;
  };
  const Figure figures[] = {{"TTFT p50", &SweepPoint::ttft_ms, &Percentiles::p50, 0, false, false},
                            {"TTFT p99", &SweepPoint::ttft_ms, &Percentiles::p99, 0, true, false},
                            {"E2E p50", &SweepPoint::e2e_ms, &Percentiles::p50, 2, false, false},
                            {"E2E p99", &SweepPoint::e2e_ms, &Percentiles::p99, 2, true, false},
                            {"TPOT p50", &SweepPoint::tpot_ms, &Percentiles::p50, 1, false, true},
                            {"TPOT p99", &SweepPoint::tpot_ms, &Percentiles::p99, 1, true, true}};
  // TTFT and E2E on the left axis: linear, or log when they span more than kLatencyLogSpan (then
  // TPOT shares that axis; on a linear one it has the right axis to itself).
  double left_min = 0, left_max = 0, all_min = 0, all_max = 0, x_min = 0, x_max = 0;
  bool any = false;
  for (const auto& f : figures)
    for (const SweepPoint* p : by_rate(s)) {
      const auto& pct = (*p).*(f.field);
      if (p->status != CellStatus::Valid || !pct) continue;
      const double v = (*pct).*(f.q);
      if (!f.tpot && v > 0) left_min = left_min > 0 ? std::min(left_min, v) : v;
      if (!f.tpot) left_max = std::max(left_max, v);
      all_min = any ? std::min(all_min, v) : v;
      all_max = std::max(all_max, v);
      x_min = any ? std::min(x_min, p->rate_rps) : p->rate_rps;
      x_max = std::max(x_max, p->rate_rps);
      any = true;
    }
  c.y_log10 = left_min > 0 && left_max / left_min > kLatencyLogSpan;
  if (c.y_log10) {
    c.y_label = tr("ms (log scale)");
  } else {
    c.y_label = "TTFT, E2E ms";
    c.y2_label = "TPOT ms";
  }
  for (const auto& f : figures) {
    const bool right = f.tpot && !c.y_log10;
    const std::string name = !right                     ? std::string(f.name)
                             : f.q == &Percentiles::p50 ? tr("TPOT p50 (right axis)")
                                                        : tr("TPOT p99 (right axis)");
    ChartSeries series{name, {}, f.color, f.dashed, right};
    for (const SweepPoint* p : by_rate(s)) {
      const auto& pct = (*p).*(f.field);
      if (p->status != CellStatus::Valid || !pct) continue;
      const double v = (*pct).*(f.q);
      series.points.push_back({p->rate_rps, v, fmt::format("{:.3g}/s: {} {:.1f} ms", p->rate_rps, f.name, v)});
    }
    if (!series.points.empty()) c.series.push_back(std::move(series));
  }
  c.x_ticks = rate_ticks(x_max);
  // The SLO targets: a labelled horizontal line on the axis of their figure, across the rates.
  auto target_line = [&](const std::optional<double>& target_ms, const char* figure, int color, bool tpot) {
    if (!target_ms || !any) return;
    const std::string label = trf("{} SLO: {:g} ms", figure, *target_ms);
    ChartSeries line{label, {{x_min, *target_ms, label}, {x_max, *target_ms, label}}, color, true, tpot && !c.y_log10};
    line.end_label = label;
    line.reference = true;
    c.series.push_back(std::move(line));
  };
  target_line(s.slo_ttft_ms, "TTFT", 0, false);
  target_line(s.slo_tpot_ms, "TPOT", 1, true);
  const double y_top = c.y_log10 ? all_max : left_max;
  if (s.max_rate_within_slo_rps && y_top > 0) {
    const double x = *s.max_rate_within_slo_rps;
    const std::string label = trf("highest rate with {:.0f}% within SLO: {:.3g}/s", 100 * s.slo_fraction, x);
    c.series.push_back(ChartSeries{label, {{x, c.y_log10 ? all_min : 0, label}, {x, y_top, label}}, 5, true, false});
  }
  return c;
}

std::string render_sweep(const RunResult& result, ReportFormat format, const RenderOptions& options) {
  switch (format) {
    case ReportFormat::Term: return render_term_sweep(result, options);
    case ReportFormat::Html: return render_html_sweep(result);
    case ReportFormat::Markdown: return render_markdown_sweep(result);
    case ReportFormat::Csv: return render_csv_sweep(result);
  }
  return render_term_sweep(result, options);
}

}  // namespace sm::report
