#pragma once
// The printers behind render_report(): each lays out the same ReportModel (CSV reads the
// RunResult for raw numbers). report.cc picks one.
#include <string>

#include "report/report.h"
#include "report/report_model.h"
#include "telemetry/telemetry_series.h"

namespace sm::report {

/// The seed page as coloured text that fits options.width_columns (report_term.cc).
std::string render_term(const ReportModel& model, const RenderOptions& options);

/// The seed page as GitHub-flavoured Markdown (report_markdown.cc).
std::string render_markdown(const ReportModel& model);

/// The seed page as one self-contained HTML file with inline SVG charts (report_html.cc); with the
/// run's telemetry series, also its time chart.
std::string render_html(const RunResult& result, const ReportModel& model, const TelemetrySeries* series = nullptr);

/// One row per prefill row and decode cell, raw numbers, RFC 4180 quoting (report_csv.cc).
std::string render_csv(const RunResult& result);

}  // namespace sm::report
