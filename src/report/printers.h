#pragma once
// The printers behind render_report(): each lays out the same ReportModel (CSV reads the
// RunResult for raw numbers). report.cc picks one.
#include <string>

#include "report/report.h"
#include "report/report_model.h"
#include "report/term_text.h"
#include "telemetry/telemetry_series.h"

namespace sm::report {

/// The seed page as coloured text that fits options.width_columns (report_term.cc).
std::string render_term(const ReportModel& model, const RenderOptions& options);

/// The seed page as GitHub-flavoured Markdown (report_markdown.cc).
std::string render_markdown(const ReportModel& model);

/// The seed page as one self-contained HTML file with inline SVG charts (report_html.cc); with the
/// run's telemetry series, also its time chart.
std::string render_html(const RunResult& result, const ReportModel& model, const TelemetrySeries* series = nullptr);

/// Fact groups (Hardware, Engine, Connection, ...) as each printer lays them out: the seed page's
/// and the sweep's report's (report_term.cc, report_markdown.cc, report_html.cc).
std::string term_fact_groups(const std::vector<FactGroup>& groups, const Ansi& ansi, size_t width);
std::string markdown_fact_groups(const std::vector<FactGroup>& groups);
std::string html_fact_groups(const std::vector<FactGroup>& groups);

/// One row per prefill row and decode cell, raw numbers, RFC 4180 quoting (report_csv.cc).
std::string render_csv(const RunResult& result);

}  // namespace sm::report
