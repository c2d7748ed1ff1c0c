#pragma once
// Reports of a run: the seed page as a terminal view, a self-contained HTML page, Markdown and
// CSV; and the comparison of several runs. Every printer reads the one RunResult record.
//
//   auto text = sm::render_report(result, sm::ReportFormat::Html, {});
//   if (auto ok = sm::write_run_reports(result, "runs/20261202-qwen"); !ok) ...
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "report/translate.h"
#include "result/result.h"
#include "telemetry/telemetry_series.h"

namespace sm {

/// The output formats of `report` and `compare`.
enum class ReportFormat {
  Term,      ///< coloured (or plain) text for a terminal
  Html,      ///< one self-contained HTML file: inline CSS and SVG, nothing fetched
  Markdown,  ///< GitHub-flavoured Markdown
  Csv,       ///< one row per prefill row and decode cell, raw numbers (report only)
};

/// Parses "term", "html", "md" (or "markdown") and "csv".
Result<ReportFormat> parse_report_format(std::string_view text);

/// The format a file name suggests: ".html"/".htm", ".md", ".csv", else nothing.
std::optional<ReportFormat> format_from_file_name(std::string_view path);

/// How a report is laid out. Only the terminal printer reads the layout; every printer reads
/// `translate`.
struct RenderOptions {
  bool color = false;      ///< ANSI colours (the CLI turns them off for pipes and NO_COLOR)
  int width_columns = 100; ///< terminal width the text must fit; tables split their columns to fit
  /// Where the terminal report's last line sends the reader for every measurement and the charts
  /// (`run`: the run folder's report.html; `calc`: its own --format).
  std::string details_hint = "report --format html (or md, csv)";
  /// The report's own words in another language: English text (msgid) in, translation out
  /// (report/translate.h). Empty: English, byte-for-byte. The results site passes its catalogs'.
  report::Translator translate;
};

/// Renders one run in one format. `series`, the run's raw telemetry (telemetry.jsonl, see
/// report::load_telemetry_series), adds the HTML report's time chart; the other formats ignore it.
/// Example: `std::string md = render_report(result, ReportFormat::Markdown, {});`
std::string render_report(const RunResult& result, ReportFormat format, const RenderOptions& options,
                          const TelemetrySeries* series = nullptr);

/// File names written beside result.json.
inline constexpr std::string_view kReportHtmlFile = "report.html";
inline constexpr std::string_view kReportMarkdownFile = "report.md";
inline constexpr std::string_view kMeasurementsCsvFile = "measurements.csv";

/// Writes report.html, report.md and measurements.csv into `run_dir` (each atomically). The HTML
/// report gets the time chart when the run folder holds the telemetry series (an unreadable series
/// only leaves the chart out).
/// Example: `write_run_reports(result, config.out_dir)` after result.json is written.
Result<void> write_run_reports(const RunResult& result, const std::string& run_dir);

/// How runs are compared.
struct CompareOptions {
  RenderOptions render;             ///< colour and width for the terminal format
  std::vector<std::string> labels;  ///< one name per run (e.g. its file name); empty: run ids
};

/// Renders every prefill row and decode cell of `runs` side by side with the ratio of each run
/// to the first, marking differences within the cells' noise with "≈" (rule: docs/reports.md).
/// Formats: Term, Html, Markdown (Csv renders as Markdown). Needs at least one run.
std::string render_compare(const std::vector<RunResult>& runs, ReportFormat format, const CompareOptions& options);

/// The same comparison as one JSON document for scripts and CI: the runs (ids), and for every later
/// run every prefill row and decode cell with each metric's values, ratio, its 95% interval
/// (`ratio_low`, `ratio_high`) and `significant` (the interval excludes 1). docs/reports.md.
std::string render_compare_json(const std::vector<RunResult>& runs, const CompareOptions& options);

}  // namespace sm
