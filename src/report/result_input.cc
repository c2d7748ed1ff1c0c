#include "report/result_input.h"

#include <filesystem>
#include <map>

#include "result/redact_result.h"
#include "result/result_json.h"

namespace sm::report {

namespace fs = std::filesystem;

namespace {
constexpr std::string_view kResultFile = "result.json";
}  // namespace

std::string result_file_path(const std::string& path_or_folder) {
  std::error_code ec;
  if (fs::is_directory(path_or_folder, ec)) return (fs::path(path_or_folder) / kResultFile).string();
  return path_or_folder;
}

Result<RunResult> load_result(const std::string& path_or_folder) {
  auto result = read_result_file(result_file_path(path_or_folder));
  if (result) redact_result(*result, {});
  return result;
}

Result<std::optional<TelemetrySeries>> load_telemetry_series(const std::string& path_or_folder,
                                                             const RunResult& result) {
  fs::path name(kTelemetrySeriesFile);
  if (result.telemetry && !result.telemetry->series_file.empty()) {
    fs::path named = fs::path(result.telemetry->series_file).filename();
    if (!named.empty() && named != "." && named != "..") name = named;
  }
  const fs::path path = fs::path(result_file_path(path_or_folder)).parent_path() / name;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::optional<TelemetrySeries>();
  auto series = read_telemetry_file(path.string());
  if (!series) return std::unexpected(series.error());
  return std::optional<TelemetrySeries>(std::move(*series));
}

std::vector<std::string> run_labels(const std::vector<std::string>& paths) {
  std::vector<std::string> labels;
  for (const auto& p : paths) {
    fs::path path = fs::path(result_file_path(p)).lexically_normal();
    std::string label = path.stem().string();
    if (path.filename() == kResultFile && path.has_parent_path() && !path.parent_path().filename().empty())
      label = path.parent_path().filename().string();
    labels.push_back(label.empty() ? p : label);
  }
  std::map<std::string, int> seen;
  for (const auto& l : labels) ++seen[l];
  for (size_t i = 0; i < labels.size(); ++i)
    if (seen[labels[i]] > 1) labels[i] = paths[i];
  return labels;
}

}  // namespace sm::report
