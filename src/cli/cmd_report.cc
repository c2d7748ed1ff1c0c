// speedmatrix report RESULT [--format term|html|md|csv] [--out FILE]
#include <cstdio>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/cost_flags.h"
#include "metrics/capacity.h"
#include "metrics/energy_cost.h"
#include "report/report.h"
#include "report/result_input.h"
#include "report/terminal.h"
#include "result/result_json.h"

namespace sm::cli {

namespace {

struct ReportFlags {
  std::string result;            ///< result.json or a run folder
  std::string format;            ///< empty: from --out's extension, else term
  std::string out;               ///< empty: stdout
  std::string color = "auto";    ///< auto, always, never
  std::optional<int> width;      ///< columns for the terminal format
  CostFlags cost;                ///< a reader's own prices (--power-price, ...)
};

int run_report(const ReportFlags& f) {
  std::optional<ReportFormat> format;
  if (!f.format.empty()) {
    auto parsed = parse_report_format(f.format);
    if (!parsed) {
      std::fprintf(stderr, "speedmatrix report: --format: %s\n", parsed.error().message.c_str());
      return kExitUsage;
    }
    format = *parsed;
  } else if (!f.out.empty()) {
    format = format_from_file_name(f.out);
  }
  auto color = report::parse_color_mode(f.color);
  if (!color) {
    std::fprintf(stderr, "speedmatrix report: %s\n", color.error().message.c_str());
    return kExitUsage;
  }
  auto result = report::load_result(f.result);
  if (!result) {
    std::fprintf(stderr, "speedmatrix report: %s\n", result.error().message.c_str());
    return kExitFailure;
  }
  // A reader's own prices: the cost figures are worked out again from the stored energies.
  if (f.cost.power_price || f.cost.currency || f.cost.hardware_cost || f.cost.amortize_years || f.cost.host_power_w ||
      f.cost.busy_share) {
    if (auto ok = apply_cost_flags(f.cost, result->settings.cost); !ok) {
      std::fprintf(stderr, "speedmatrix report: %s\n", ok.error().message.c_str());
      return kExitUsage;
    }
    if (result->capacity.empty()) result->capacity = run_capacity(*result);
    apply_energy(*result, energy_inputs(*result));
  }
  // The time chart's series, beside the result; an unreadable one only leaves the chart out.
  std::optional<TelemetrySeries> series;
  if (format == ReportFormat::Html) {
    if (auto loaded = report::load_telemetry_series(f.result, *result))
      series = std::move(*loaded);
    else
      std::fprintf(stderr, "speedmatrix report: no time chart (the telemetry series is unreadable): %s\n",
                   loaded.error().message.c_str());
  }
  RenderOptions options;
  bool to_stdout = f.out.empty();
  options.color = to_stdout && report::stdout_wants_color(*color);
  options.width_columns = f.width ? *f.width : to_stdout ? report::stdout_width_columns() : 100;
  std::string text = render_report(*result, format.value_or(ReportFormat::Term), options, series ? &*series : nullptr);
  if (to_stdout) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
  }
  if (auto ok = write_file_atomic(f.out, text); !ok) {
    std::fprintf(stderr, "speedmatrix report: %s\n", ok.error().message.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand("report", "Render a result file as a terminal table, HTML, Markdown or CSV");
  cmd->footer(
      "Examples:\n"
      "  speedmatrix report runs/20261202-qwen/result.json\n"
      "  speedmatrix report runs/20261202-qwen --format html --out report.html\n"
      "  speedmatrix report result.json --format csv > measurements.csv\n"
      "Colours are off when stdout is not a terminal or NO_COLOR is set.");
  cmd->add_option("result", flags->result, "A result.json, or a run folder that holds one")->required();
  cmd->add_option("--format", flags->format,
                  "term (default), html (one self-contained file), md (Markdown) or csv; "
                  "with --out and no --format, the file's extension decides");
  cmd->add_option("--out", flags->out, "Write to this file instead of stdout");
  cmd->add_option("--color", flags->color, "Terminal colours: auto, always or never")->capture_default_str();
  cmd->add_option("--width", flags->width, "Columns the terminal format fits (default: the terminal's, at most 100)")
      ->check(CLI::Range(40, 1000));
  add_cost_flags(cmd, flags->cost);
  cmd->callback([flags, &action]() { action = [flags]() { return run_report(*flags); }; });
}

}  // namespace sm::cli
