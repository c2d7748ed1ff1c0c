#include "report/power_limit_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/markdown_text.h"
#include "report/report_model.h"
#include "report/svg_chart.h"
#include "report/translate.h"

namespace sm::report {

namespace {

/// A limit asked for and the one the GPUs reported differ when they are more than this apart (W):
/// the set command did not take.
constexpr double kLimitToleranceW = 1.0;

std::string watts_text(double w) { return fmt::format("{:g} W", w); }

std::string cell_name(const DecodeCell& c) { return fmt::format("{} × {}", format_tokens(c.context), c.concurrency); }

// The cells a limit's run measured with both figures: valid, with output tok/s and tok/J.
std::vector<const DecodeCell*> energy_cells(const RunResult& r) {
  std::vector<const DecodeCell*> out;
  for (const DecodeCell& c : r.decode)
    if (c.status == CellStatus::Valid && c.total_tok_s && c.telemetry.tokens_per_joule) out.push_back(&c);
  return out;
}

std::string tok_j_text(const DecodeCell& c) {
  return c.telemetry.tokens_per_joule ? fmt::format("{:.3g}", *c.telemetry.tokens_per_joule) : std::string(kDash);
}

Table by_limit_table(const std::vector<PowerLimitRun>& runs) {
  Table t;
  t.header = {tr("limit"), tr("GPUs report"), tr("best output tok/s"), tr("tok/J there"), tr("most tok/J"),
              tr("output tok/s there")};
  t.align = {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right};
  for (const PowerLimitRun& run : runs) {
    const DecodeCell* fastest = nullptr;
    const DecodeCell* thriftiest = nullptr;
    for (const DecodeCell& c : run.result.decode) {
      if (c.status != CellStatus::Valid || !c.total_tok_s) continue;
      if (!fastest || *c.total_tok_s > *fastest->total_tok_s) fastest = &c;
      if (c.telemetry.tokens_per_joule &&
          (!thriftiest || *c.telemetry.tokens_per_joule > *thriftiest->telemetry.tokens_per_joule))
        thriftiest = &c;
    }
    const auto reported = enforced_limit_w(run.result);
    TableRow row;
    row.cells = {watts_text(run.limit_w), reported ? watts_text(*reported) : std::string(kDash),
                 fastest ? format_tok_s(fastest->total_tok_s) + " (" + cell_name(*fastest) + ")" : std::string(kDash),
                 fastest ? tok_j_text(*fastest) : std::string(kDash),
                 thriftiest ? tok_j_text(*thriftiest) + " (" + cell_name(*thriftiest) + ")" : std::string(kDash),
                 thriftiest ? format_tok_s(thriftiest->total_tok_s) : std::string(kDash)};
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table by_cell_table(const std::vector<PowerLimitRun>& runs) {
  Table t;
  t.header = {tr("cell (context × requests)")};
  t.align = {Align::Left};
  for (const PowerLimitRun& run : runs) {
    t.header.push_back(watts_text(run.limit_w));
    t.align.push_back(Align::Right);
  }
  std::map<std::pair<int64_t, int64_t>, std::vector<std::string>> rows;
  for (size_t i = 0; i < runs.size(); ++i)
    for (const DecodeCell& c : runs[i].result.decode) {
      auto& cells = rows[{c.context, c.concurrency}];
      cells.resize(runs.size(), std::string(kDash));
      if (c.status != CellStatus::Valid) cells[i] = status_label(c.status);
      else if (c.total_tok_s && c.telemetry.tokens_per_joule)
        cells[i] = trf("{} tok/s · {} tok/J", format_tok_s(c.total_tok_s), tok_j_text(c));
      else if (c.total_tok_s)
        cells[i] = trf("{} tok/s", format_tok_s(c.total_tok_s));
    }
  for (auto& [key, cells] : rows) {
    TableRow row;
    row.cells.push_back(fmt::format("{} × {}", format_tokens(key.first), key.second));
    for (auto& c : cells) row.cells.push_back(std::move(c));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<std::string> sweep_notes(const std::vector<PowerLimitRun>& runs) {
  std::vector<std::string> notes;
  for (const PowerLimitRun& run : runs)
    if (const auto reported = enforced_limit_w(run.result);
        reported && std::fabs(*reported - run.limit_w) > kLimitToleranceW)
      notes.push_back(trf("Asked for {}, the GPUs reported {}: the command did not set the limit, so that run "
                          "measured {}.",
                          watts_text(run.limit_w), watts_text(*reported), watts_text(*reported)));
  const bool any_energy = std::any_of(runs.begin(), runs.end(), [](const PowerLimitRun& r) {
    return !energy_cells(r.result).empty();
  });
  if (!any_energy)
    notes.push_back(tr("No GPU energy was read (no GPU telemetry of the server's GPUs): tokens per joule needs it."));
  return notes;
}

std::string sweep_title(const std::vector<PowerLimitRun>& runs) {
  if (runs.empty()) return tr("Power-limit sweep");
  const ReportModel m = build_report_model(runs.front().result);
  return trf("Power-limit sweep: {} on {}", m.model_name, m.hardware_name);
}

LineChart tokens_per_joule_chart(const std::vector<PowerLimitRun>& runs) {
  LineChart chart;
  chart.title = tr("Tokens per joule against output tok/s, by power limit");
  chart.x_label = tr("output tok/s (all requests)");
  chart.x_log2 = false;
  chart.y_label = tr("tokens per joule");
  chart.y_format = [](double v) { return fmt::format("{:g}", v); };
  double x_max = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    ChartSeries s;
    s.name = watts_text(runs[i].limit_w);
    s.color = static_cast<int>(i % 8);
    std::vector<const DecodeCell*> cells = energy_cells(runs[i].result);
    std::sort(cells.begin(), cells.end(), [](const DecodeCell* a, const DecodeCell* b) { return *a->total_tok_s < *b->total_tok_s; });
    for (const DecodeCell* c : cells) {
      s.points.push_back({*c->total_tok_s, *c->telemetry.tokens_per_joule,
                          trf("{} at {}: {} tok/s, {} tok/J", cell_name(*c), s.name, format_tok_s(c->total_tok_s),
                              tok_j_text(*c))});
      x_max = std::max(x_max, *c->total_tok_s);
    }
    if (!s.points.empty()) chart.series.push_back(std::move(s));
  }
  if (x_max > 0) {
    const double step = nice_step(x_max, 5);
    for (double x = 0; x <= x_max + step / 2; x += step) chart.x_ticks.push_back(x);
  }
  chart.x_format = [](double v) { return compact_number(v); };
  return chart;
}

}  // namespace

std::optional<double> enforced_limit_w(const RunResult& run) {
  if (!run.telemetry) return std::nullopt;
  const TelemetryInfo& t = *run.telemetry;
  // Files from before the server's GPUs were chosen (no source) read every GPU as the server's.
  const bool all = t.server_gpus_source.empty();
  std::optional<double> smallest;
  for (const TelemetryGpu& g : t.gpus)
    if ((all || std::find(t.server_gpus.begin(), t.server_gpus.end(), g.index) != t.server_gpus.end()) &&
        g.power_limit_w && (!smallest || *g.power_limit_w < *smallest))
      smallest = g.power_limit_w;
  return smallest;
}

std::string power_limits_markdown(const std::vector<PowerLimitRun>& runs) {
  std::string out = "# " + md_escape(sweep_title(runs)) + "\n\n";
  out += md_escape(tr("The same matrix at each GPU power limit; each limit's run has its own folder and reports.")) +
         "\n\n";
  out += "## " + md_escape(tr("By limit")) + "\n\n" + md_table(by_limit_table(runs)) + "\n";
  out += "## " + md_escape(tr("Every cell")) + "\n\n" + md_table(by_cell_table(runs)) + "\n";
  for (const std::string& note : sweep_notes(runs)) out += "- " + md_escape(note) + "\n";
  return out;
}

std::string power_limits_html(const std::vector<PowerLimitRun>& runs) {
  const std::string title = sweep_title(runs);
  std::string body = "<h1>" + html_escape(title) + "</h1>\n<p>" +
                     html_escape(tr("The same matrix at each GPU power limit; each limit's run has its own folder and "
                                    "reports.")) +
                     "</p>\n";
  const LineChart chart = tokens_per_joule_chart(runs);
  if (!chart.series.empty())
    body += "<figure>" + render_svg(chart) + render_legend(chart) + "</figure>\n";
  body += "<h2>" + html_escape(tr("By limit")) + "</h2>\n" + data_table_html(by_limit_table(runs), "power-limits-by-limit") + "\n";
  body += "<h2>" + html_escape(tr("Every cell")) + "</h2>\n" + data_table_html(by_cell_table(runs), "power-limits-by-cell") + "\n";
  const auto notes = sweep_notes(runs);
  if (!notes.empty()) {
    body += "<ul>";
    for (const std::string& note : notes) body += "<li>" + html_escape(note) + "</li>";
    body += "</ul>\n";
  }
  return html_document(title, body);
}

}  // namespace sm::report
