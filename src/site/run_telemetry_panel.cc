#include "site/run_telemetry_panel.h"

#include <fmt/format.h>

#include "report/cell_format.h"
#include "site/page_layout.h"
#include "site/telemetry_text.h"
#include "site/ui_language.h"
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
  if (r.kind == "predicted") return esc(ui_text("telemetry.none.prediction"));
  if (!r.telemetry) return ui_text("telemetry.none.not_sampled.html");
  if (!r.telemetry->gpu_unavailable.empty()) return esc(r.telemetry->gpu_unavailable);
  return esc(ui_text("telemetry.none.no_gpu"));
}

// Why the readings are not the server's (escaped).
std::string client_reason(const RunResult& r) {
  switch (r.hardware.source) {
    case HardwareSource::Simulated: return esc(ui_text("telemetry.client.simulated"));
    case HardwareSource::Catalog: return esc(ui_text("telemetry.client.prediction"));
    default: return esc(ui_text("telemetry.client.remote"));
  }
}

std::string measurement_name(const store::ThrottledMeasurement& m) {
  return m.prefill ? prefill_row_name(m.context) : cell_name(m.context, m.concurrency);
}

std::string throttle_line(const store::RunTelemetry& t, std::string_view whose) {
  if (t.measurements_with_verdict == 0)
    return "<p class=\"note\" id=\"throttle-verdict\">" + esc(ui_format("telemetry.verdict.none", whose)) + "</p>\n";
  if (t.throttled.empty())
    return "<p id=\"throttle-verdict\">" +
           ui_format("telemetry.verdict.ok.html", esc(whose), esc(ui_number(t.measurements_with_verdict))) + "</p>\n";
  std::string names;
  for (const auto& m : t.throttled) {
    if (!names.empty()) names += ", ";
    names += esc(measurement_name(m)) + " (" + esc(throttle_label(m.verdict)) + ")";
  }
  return "<div class=\"warn-box\" id=\"throttle-verdict\">" +
         ui_format("telemetry.verdict.throttled.html", esc(whose), esc(ui_number(static_cast<int64_t>(t.throttled.size()))),
                   esc(ui_number(t.measurements_with_verdict)), names) +
         "</div>\n";
}

std::string best_line(const RunResult& r, const store::RunTelemetry& t) {
  if (!t.best_tokens_per_joule)
    return "<p class=\"note\" id=\"best-efficiency\">" + esc(ui_text("telemetry.best.none")) + "</p>\n";
  const DecodeCell* best = nullptr;
  for (const DecodeCell& c : r.decode)
    if (c.status == CellStatus::Valid && c.context == t.best_tokens_per_joule_context &&
        c.concurrency == t.best_tokens_per_joule_concurrency)
      best = &c;
  std::string where = esc(cell_name(t.best_tokens_per_joule_context.value_or(0),
                                    t.best_tokens_per_joule_concurrency.value_or(0)));
  if (best)
    where += " (" + esc(ui_localize_number(format_watts(best->telemetry.gpu_power_w))) + ", " +
             esc(ui_localize_number(format_mhz(best->telemetry.gpu_sm_clock_mhz))) + ")";
  return "<p id=\"best-efficiency\">" +
         ui_format("telemetry.best.html", esc(ui_localize_number(format_tokens_per_joule(t.best_tokens_per_joule))), where) +
         "</p>\n";
}

std::string gpus_line(const RunResult& r) {
  if (!r.telemetry || r.telemetry->gpus.empty()) return "";
  std::string out = "<p class=\"note\" id=\"telemetry-gpus\">" +
                    esc(ui_format(r.telemetry->gpu_source.empty() ? "telemetry.sampled" : "telemetry.sampled_through",
                                  report::format_duration_s(r.telemetry->interval_s), r.telemetry->gpu_source)) +
                    ": ";
  bool first = true;
  for (const TelemetryGpu& g : r.telemetry->gpus) {
    out += first ? "" : "; ";
    first = false;
    out += fmt::format("GPU {} {}", g.index, esc(g.name));
    std::string facts;
    if (g.power_limit_w) facts += ui_format("telemetry.power_limit", ui_localize_number(format_watts(g.power_limit_w)));
    if (g.sm_clock_max_mhz)
      facts += (facts.empty() ? "" : ", ") + ui_format("telemetry.sm_clock_max", ui_localize_number(format_mhz(g.sm_clock_max_mhz)));
    if (!facts.empty()) out += " (" + esc(facts) + ")";
  }
  return out + ".</p>\n";
}

std::string row_html(const std::string& name, CellStatus status, const CellTelemetry& t, const NumberColumn* tpj,
                     bool best) {
  std::string out = best ? "<tr class=\"best\">" : "<tr>";
  out += "<td class=\"l\">" + esc(name) + "</td>";
  const report::Translator translate = ui_report_translator();  // the report's status words, in the page's language
  const report::TranslationScope in_language(translate);
  out += "<td class=\"l\">" + esc(report::status_label(status)) + "</td>";
  if (tpj) out += "<td>" + column_text(*tpj, t.tokens_per_joule) + "</td>";
  out += "<td>" + esc(ui_localize_number(format_watts(t.gpu_power_w))) + "</td>";
  out += "<td>" + esc(ui_localize_number(format_joules(t.gpu_energy_j))) + "</td>";
  out += "<td>" + esc(ui_localize_number(format_mhz(t.gpu_sm_clock_mhz))) + "</td>";
  out += "<td>" + esc(ui_localize_number(format_celsius(t.gpu_temp_max_c))) + "</td>";
  const bool throttled = !t.throttle.empty() && t.throttle != "ok";
  out += std::string("<td class=\"l") + (throttled ? " throttled" : "") + "\" data-throttle=\"" + esc(t.throttle) +
         "\">" + esc(throttle_label(t.throttle)) + "</td></tr>\n";
  return out;
}

std::string cells_table(const RunResult& r, const store::RunTelemetry& t, bool show_tpj, std::string_view summary) {
  // The tokens-per-joule column in one style for all its rows (NumberColumn).
  std::vector<std::optional<double>> tpj_values;
  for (const DecodeCell& c : r.decode)
    if (has_readings(c.telemetry)) tpj_values.push_back(c.telemetry.tokens_per_joule);
  for (const PrefillRow& p : r.prefill)
    if (has_readings(p.telemetry)) tpj_values.push_back(p.telemetry.tokens_per_joule);
  const NumberColumn tpj_column(tpj_values);
  const NumberColumn* tpj = show_tpj ? &tpj_column : nullptr;
  std::string rows;
  for (const DecodeCell& c : r.decode) {
    if (!has_readings(c.telemetry)) continue;
    const bool best = show_tpj && c.status == CellStatus::Valid && t.best_tokens_per_joule &&
                      c.context == t.best_tokens_per_joule_context &&
                      c.concurrency == t.best_tokens_per_joule_concurrency;
    rows += row_html(cell_name(c.context, c.concurrency), c.status, c.telemetry, tpj, best);
  }
  for (const PrefillRow& p : r.prefill)
    if (has_readings(p.telemetry)) rows += row_html(prefill_row_name(p.context), p.status, p.telemetry, tpj, false);
  if (rows.empty()) return "";
  auto th = [](std::string_view key, std::string_view sub_key = "", std::string_view cls = "") {
    std::string out = "<th" + std::string(cls.empty() ? "" : " class=\"l\"") + ">" + esc(ui_text(key));
    if (!sub_key.empty()) out += "<span class=\"sub\">" + esc(ui_text(sub_key)) + "</span>";
    return out + "</th>";
  };
  std::string out = "<details id=\"telemetry-cells\"><summary>" + esc(summary) +
                    "</summary>\n<div class=\"scroll\">\n<table class=\"data\" id=\"telemetry-table\">\n<thead><tr>" +
                    th("telemetry.cell", "", "l") + th("telemetry.status", "", "l");
  if (show_tpj) out += th("telemetry.tpj", "telemetry.tpj.sub");
  out += th("telemetry.power", "telemetry.power.sub") + th("telemetry.energy") + th("telemetry.clock", "telemetry.clock.sub") +
         th("telemetry.hottest") + th("telemetry.throttle", "", "l") + "</tr></thead>\n<tbody>\n";
  return out + rows + "</tbody>\n</table>\n</div>\n</details>\n";
}

}  // namespace

std::string run_telemetry_panel(const RunResult& r) {
  const store::RunTelemetry t = store::summarize_run_telemetry(r);
  std::string out = "<section class=\"telemetry-panel\" id=\"run-telemetry\">\n<h2>" + esc(ui_text("telemetry.title")) +
                    "</h2>\n";
  switch (t.scope) {
    case GpuTelemetryScope::None:
      out += "<p class=\"note\" id=\"telemetry-none\">" + ui_format("telemetry.none.html", none_reason(r)) + "</p>\n";
      break;
    case GpuTelemetryScope::ClientSideOnly:
      out += "<div class=\"warn-box\" id=\"telemetry-client-side\">" + ui_format("telemetry.client.html", client_reason(r)) +
             "</div>\n";
      out += gpus_line(r);
      // speedmatrix gives such cells no GPU figures; a result that has some shows them as the client's.
      if (t.measurements_with_verdict > 0) out += throttle_line(t, ui_text("telemetry.whose.client"));
      out += cells_table(r, t, false, ui_text("telemetry.cells.client"));
      break;
    case GpuTelemetryScope::Server:
      out += best_line(r, t);
      out += gpus_line(r);
      out += throttle_line(t, ui_text("telemetry.whose.server"));
      out += cells_table(r, t, true, ui_text("telemetry.cells.server"));
      break;
  }
  return out + "</section>\n";
}

}  // namespace sm::site
