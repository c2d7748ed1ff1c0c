#include "report/report.h"

#include <filesystem>
#include <fmt/format.h>

#include "report/printers.h"
#include "report/report_model.h"
#include "report/result_input.h"
#include "report/sweep_report.h"
#include "report/translate.h"
#include "result/result_json.h"

namespace sm {

Result<ReportFormat> parse_report_format(std::string_view text) {
  if (text == "term" || text == "text") return ReportFormat::Term;
  if (text == "html") return ReportFormat::Html;
  if (text == "md" || text == "markdown") return ReportFormat::Markdown;
  if (text == "csv") return ReportFormat::Csv;
  return fail(ErrorCode::InvalidArgument, fmt::format("unknown format '{}' (use term, html, md or csv)", text));
}

std::optional<ReportFormat> format_from_file_name(std::string_view path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".html" || ext == ".htm") return ReportFormat::Html;
  if (ext == ".md" || ext == ".markdown") return ReportFormat::Markdown;
  if (ext == ".csv") return ReportFormat::Csv;
  if (ext == ".txt") return ReportFormat::Term;
  return std::nullopt;
}

std::string render_report(const RunResult& result, ReportFormat format, const RenderOptions& options,
                          const TelemetrySeries* series) {
  report::TranslationScope language(options.translate);
  if (result.sweep) return report::render_sweep(result, format, options);
  if (format == ReportFormat::Csv) return report::render_csv(result);
  report::ReportModel model = report::build_report_model(result);
  switch (format) {
    case ReportFormat::Term: return report::render_term(model, options);
    case ReportFormat::Html: return report::render_html(result, model, series);
    case ReportFormat::Markdown: return report::render_markdown(model);
    case ReportFormat::Csv: break;
  }
  return report::render_csv(result);
}

Result<void> write_run_reports(const RunResult& result, const std::string& run_dir) {
  namespace fs = std::filesystem;
  if (result.sweep) {
    for (auto [name, format] : {std::pair{kReportHtmlFile, ReportFormat::Html}, {kReportMarkdownFile, ReportFormat::Markdown},
                                {kMeasurementsCsvFile, ReportFormat::Csv}})
      if (auto ok = write_file_atomic((fs::path(run_dir) / name).string(), report::render_sweep(result, format, {})); !ok)
        return ok;
    return {};
  }
  report::ReportModel model = report::build_report_model(result);
  auto series = report::load_telemetry_series(run_dir, result);
  const TelemetrySeries* chart = series && *series ? &**series : nullptr;
  const std::pair<std::string_view, std::string> files[] = {
      {kReportHtmlFile, report::render_html(result, model, chart)},
      {kReportMarkdownFile, report::render_markdown(model)},
      {kMeasurementsCsvFile, report::render_csv(result)},
  };
  for (const auto& [name, text] : files) {
    auto ok = write_file_atomic((fs::path(run_dir) / name).string(), text);
    if (!ok) return ok;
  }
  return {};
}

}  // namespace sm
