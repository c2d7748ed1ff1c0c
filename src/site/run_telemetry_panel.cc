#include "site/run_telemetry_panel.h"

#include <fmt/format.h>

#include "report/cell_format.h"
#include "site/page_layout.h"
#include "site/telemetry_text.h"
#include "store/run_telemetry.h"

namespace sm::site {

namespace {

using store::GpuTelemetryScope;

bool has_readings(const CellTelemetry& t) {
  return !t.throttle.empty() || t.gpu_power_w || t.gpu_energy_j || t.tokens_per_joule || t.gpu_sm_clock_mhz ||
         t.gpu_temp_max_c;
}

// Why a run has no GPU telemetry, in words (escaped).
std::string none_reason(const RunResult& r) {
  if (r.kind == "predicted") return "it is a prediction, so nothing was measured";
  if (!r.telemetry)
    return "it was not sampled (<code>--no-telemetry</code>, or a result from a speedmatrix without telemetry)";
  if (!r.telemetry->gpu_unavailable.empty()) return esc(r.telemetry->gpu_unavailable);
  return "no GPU was read";
}

// Why the readings are not the server's (escaped).
std::string client_reason(const RunResult& r) {
  switch (r.hardware.source) {
    case HardwareSource::Simulated: return "the simulated engine served the tokens without a GPU";
    case HardwareSource::Catalog: return "it is a prediction";
    default: return "the server ran on another machine";
  }
}

std::string measurement_name(const store::ThrottledMeasurement& m) {
  return m.prefill ? prefill_row_name(m.context) : cell_name(m.context, m.concurrency);
}

std::string throttle_line(const store::RunTelemetry& t, std::string_view whose) {
  if (t.measurements_with_verdict == 0)
    return fmt::format("<p class=\"note\" id=\"throttle-verdict\">{}: no valid cell has a throttle verdict.</p>\n", whose);
  if (t.throttled.empty())
    return fmt::format("<p id=\"throttle-verdict\">{}: <strong>OK</strong> in all {} valid cells and prefill rows "
                       "with a verdict — no power cap, thermal or hardware slowdown held the clocks back.</p>\n",
                       whose, t.measurements_with_verdict);
  std::string names;
  for (const auto& m : t.throttled) {
    if (!names.empty()) names += ", ";
    names += esc(measurement_name(m)) + " (" + esc(throttle_label(m.verdict)) + ")";
  }
  return fmt::format("<div class=\"warn-box\" id=\"throttle-verdict\"><strong>{}: throttled in {} of {}</strong> "
                     "valid cells and prefill rows with a verdict: {}. Their numbers are what the GPU gave while held "
                     "back (docs/METRICS.md, Telemetry).</div>\n",
                     whose, t.throttled.size(), t.measurements_with_verdict, names);
}

std::string best_line(const RunResult& r, const store::RunTelemetry& t) {
  if (!t.best_tokens_per_joule)
    return "<p class=\"note\" id=\"best-efficiency\">No valid decode cell has a tokens-per-joule figure, so this run "
           "is not ranked by efficiency.</p>\n";
  const DecodeCell* best = nullptr;
  for (const DecodeCell& c : r.decode)
    if (c.status == CellStatus::Valid && c.context == t.best_tokens_per_joule_context &&
        c.concurrency == t.best_tokens_per_joule_concurrency)
      best = &c;
  std::string where = esc(cell_name(t.best_tokens_per_joule_context.value_or(0),
                                    t.best_tokens_per_joule_concurrency.value_or(0)));
  if (best)
    where += " (" + esc(format_watts(best->telemetry.gpu_power_w)) + ", " +
             esc(format_mhz(best->telemetry.gpu_sm_clock_mhz)) + ")";
  return fmt::format("<p id=\"best-efficiency\"><strong>Best efficiency: {} tokens per joule</strong> at {}: output "
                     "tokens per joule of GPU energy, the highest of any valid decode cell. The leaderboard's "
                     "efficiency ranking uses it.</p>\n",
                     esc(format_tokens_per_joule(t.best_tokens_per_joule)), where);
}

std::string gpus_line(const RunResult& r) {
  if (!r.telemetry || r.telemetry->gpus.empty()) return "";
  std::string out = fmt::format("<p class=\"note\" id=\"telemetry-gpus\">Sampled every {}{}: ",
                                esc(report::format_duration_s(r.telemetry->interval_s)),
                                r.telemetry->gpu_source.empty() ? "" : " through " + esc(r.telemetry->gpu_source));
  bool first = true;
  for (const TelemetryGpu& g : r.telemetry->gpus) {
    out += first ? "" : "; ";
    first = false;
    out += fmt::format("GPU {} {}", g.index, esc(g.name));
    std::string facts;
    if (g.power_limit_w) facts += "power limit " + format_watts(g.power_limit_w);
    if (g.sm_clock_max_mhz) facts += (facts.empty() ? "" : ", ") + ("SM clock max " + format_mhz(g.sm_clock_max_mhz));
    if (!facts.empty()) out += " (" + esc(facts) + ")";
  }
  return out + ".</p>\n";
}

std::string row_html(const std::string& name, CellStatus status, const CellTelemetry& t, bool show_tpj, bool best) {
  std::string out = best ? "<tr class=\"best\">" : "<tr>";
  out += "<td class=\"l\">" + esc(name) + "</td>";
  out += "<td class=\"l\">" + esc(report::status_label(status)) + "</td>";
  if (show_tpj) out += "<td>" + esc(format_tokens_per_joule(t.tokens_per_joule)) + "</td>";
  out += "<td>" + esc(format_watts(t.gpu_power_w)) + "</td>";
  out += "<td>" + esc(format_joules(t.gpu_energy_j)) + "</td>";
  out += "<td>" + esc(format_mhz(t.gpu_sm_clock_mhz)) + "</td>";
  out += "<td>" + esc(format_celsius(t.gpu_temp_max_c)) + "</td>";
  const bool throttled = !t.throttle.empty() && t.throttle != "ok";
  out += std::string("<td class=\"l") + (throttled ? " throttled" : "") + "\" data-throttle=\"" + esc(t.throttle) +
         "\">" + esc(throttle_label(t.throttle)) + "</td></tr>\n";
  return out;
}

std::string cells_table(const RunResult& r, const store::RunTelemetry& t, bool show_tpj, std::string_view summary) {
  std::string rows;
  for (const DecodeCell& c : r.decode) {
    if (!has_readings(c.telemetry)) continue;
    const bool best = show_tpj && c.status == CellStatus::Valid && t.best_tokens_per_joule &&
                      c.context == t.best_tokens_per_joule_context &&
                      c.concurrency == t.best_tokens_per_joule_concurrency;
    rows += row_html(cell_name(c.context, c.concurrency), c.status, c.telemetry, show_tpj, best);
  }
  for (const PrefillRow& p : r.prefill)
    if (has_readings(p.telemetry)) rows += row_html(prefill_row_name(p.context), p.status, p.telemetry, show_tpj, false);
  if (rows.empty()) return "";
  std::string out = fmt::format("<details id=\"telemetry-cells\"><summary>{}</summary>\n<div class=\"scroll\">\n"
                                "<table class=\"data\" id=\"telemetry-table\">\n<thead><tr><th class=\"l\">Cell</th>"
                                "<th class=\"l\">Status</th>",
                                summary);
  if (show_tpj) out += "<th>Tokens per joule<span class=\"sub\">prefill: prompt tokens</span></th>";
  out += "<th>GPU power<span class=\"sub\">mean, all GPUs</span></th><th>GPU energy</th><th>SM clock<span "
         "class=\"sub\">mean</span></th><th>Hottest GPU</th><th class=\"l\">Throttle</th></tr></thead>\n<tbody>\n";
  return out + rows + "</tbody>\n</table>\n</div>\n</details>\n";
}

}  // namespace

std::string run_telemetry_panel(const RunResult& r) {
  const store::RunTelemetry t = store::summarize_run_telemetry(r);
  std::string out = "<section class=\"telemetry-panel\" id=\"run-telemetry\">\n<h2>Power, clocks and efficiency</h2>\n";
  switch (t.scope) {
    case GpuTelemetryScope::None:
      out += "<p class=\"note\" id=\"telemetry-none\">No GPU telemetry in this run: " + none_reason(r) +
             ". Tokens per joule and the throttle verdict need the GPU's power and clocks, so this run is not ranked "
             "by efficiency.</p>\n";
      break;
    case GpuTelemetryScope::ClientSideOnly:
      out += "<div class=\"warn-box\" id=\"telemetry-client-side\"><strong>Client-side only:</strong> the GPU "
             "readings are of the machine that ran speedmatrix, not of the server (" +
             client_reason(r) +
             "). Tokens per joule from them would not be the server's efficiency: none is shown, and the run is not "
             "ranked by efficiency.</div>\n";
      out += gpus_line(r);
      // speedmatrix gives such cells no GPU figures; a result that has some shows them as the client's.
      if (t.measurements_with_verdict > 0) out += throttle_line(t, "The client's GPUs");
      out += cells_table(r, t, false, "Per cell: the client's GPU power, SM clock, temperature and verdict");
      break;
    case GpuTelemetryScope::Server:
      out += best_line(r, t);
      out += gpus_line(r);
      out += throttle_line(t, "Clocks");
      out += cells_table(r, t, true, "Per cell: tokens per joule, GPU power, SM clock, temperature and verdict");
      break;
  }
  return out + "</section>\n";
}

}  // namespace sm::site
