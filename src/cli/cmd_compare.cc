// speedmatrix compare A.json B.json [C.json …] [--format term|html|md|json] [--out FILE]
#include <cstdio>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "report/report.h"
#include "report/result_input.h"
#include "report/terminal.h"
#include "result/result_json.h"

namespace sm::cli {

namespace {

struct CompareFlags {
  std::vector<std::string> results;  ///< result.json files or run folders; the first is the baseline
  std::string format;                ///< empty: from --out's extension, else term
  std::string out;                   ///< empty: stdout
  std::string color = "auto";        ///< auto, always, never
  std::optional<int> width;          ///< columns for the terminal format
};

int run_compare(const CompareFlags& f) {
  if (f.results.size() < 2) {
    std::fprintf(stderr, "speedmatrix compare: give at least two result files (the first is the baseline)\n");
    return kExitUsage;
  }
  std::optional<ReportFormat> format;
  // JSON is compare's own format (report has result.json for that), so it is not a ReportFormat.
  const bool json = f.format == "json" || (f.format.empty() && f.out.ends_with(".json"));
  if (!f.format.empty() && !json) {
    auto parsed = parse_report_format(f.format);
    if (!parsed || *parsed == ReportFormat::Csv) {
      std::fprintf(stderr, "speedmatrix compare: --format must be term, html, md or json\n");
      return kExitUsage;
    }
    format = *parsed;
  } else if (!f.out.empty() && !json) {
    format = format_from_file_name(f.out);
    if (format == ReportFormat::Csv) format = ReportFormat::Markdown;
  }
  auto color = report::parse_color_mode(f.color);
  if (!color) {
    std::fprintf(stderr, "speedmatrix compare: %s\n", color.error().message.c_str());
    return kExitUsage;
  }
  std::vector<RunResult> runs;
  for (const auto& path : f.results) {
    auto result = report::load_result(path);
    if (!result) {
      std::fprintf(stderr, "speedmatrix compare: %s\n", result.error().message.c_str());
      return kExitFailure;
    }
    runs.push_back(std::move(*result));
  }
  CompareOptions options;
  options.labels = report::run_labels(f.results);
  bool to_stdout = f.out.empty();
  options.render.color = to_stdout && report::stdout_wants_color(*color);
  options.render.width_columns = f.width ? *f.width : to_stdout ? report::stdout_width_columns() : 100;
  std::string text = json ? render_compare_json(runs, options) : render_compare(runs, format.value_or(ReportFormat::Term), options);
  if (to_stdout) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
  }
  if (auto ok = write_file_atomic(f.out, text); !ok) {
    std::fprintf(stderr, "speedmatrix compare: %s\n", ok.error().message.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

void add_compare_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<CompareFlags>();
  CLI::App* cmd = app.add_subcommand("compare", "Compare two or more results cell by cell");
  cmd->footer(
      "Every prefill row and decode cell side by side, with each run's ratio to the first; \"≈\" marks a\n"
      "difference within noise: the ratio's 95% interval, from both cells' own intervals and the run-to-run\n"
      "spread (their --repeat passes, else a measured floor), holds 1 (rule: docs/reports.md).\n"
      "--format json gives every cell's ratio, interval and \"significant\" for scripts and CI.\n"
      "Examples:\n"
      "  speedmatrix compare runs/baseline runs/tuned\n"
      "  speedmatrix compare a/result.json b/result.json c/result.json --format html --out compare.html\n"
      "  speedmatrix compare runs/baseline runs/candidate --format json --out compare.json");
  cmd->add_option("results", flags->results, "Result files or run folders; the first is the baseline")
      ->required()
      ->expected(2, -1);
  cmd->add_option("--format", flags->format,
                  "term (default), html, md or json; with --out and no --format, the file's extension decides");
  cmd->add_option("--out", flags->out, "Write to this file instead of stdout");
  cmd->add_option("--color", flags->color, "Terminal colours: auto, always or never")->capture_default_str();
  cmd->add_option("--width", flags->width, "Columns the terminal format fits (default: the terminal's, at most 100)")
      ->check(CLI::Range(40, 1000));
  cmd->callback([flags, &action]() { action = [flags]() { return run_compare(*flags); }; });
}

}  // namespace sm::cli
