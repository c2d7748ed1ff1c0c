#pragma once
// Reading the result files `report` and `compare` are given: a result.json, or a run folder
// holding one; and the run's telemetry series beside it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "result/result.h"
#include "telemetry/telemetry_series.h"

namespace sm::report {

/// The result file a path names: the path itself, or <folder>/result.json for a folder.
std::string result_file_path(const std::string& path_or_folder);

/// Reads and validates the result a path names (see result_file_path), with its secrets redacted
/// (result/redact.h): a file written before redaction existed prints and renders clean.
Result<RunResult> load_result(const std::string& path_or_folder);

/// The file name of a run's telemetry series when the result does not name one.
inline constexpr std::string_view kTelemetrySeriesFile = "telemetry.jsonl";

/// The run's raw telemetry series beside the result a path names (see result_file_path): the file
/// result.telemetry.series_file names (its last component only: the series lives in the run
/// folder), else telemetry.jsonl. nullopt when there is no such file; an error when it is there
/// but unreadable.
Result<std::optional<TelemetrySeries>> load_telemetry_series(const std::string& path_or_folder,
                                                             const RunResult& result);

/// Short names for runs, one per path: the file's stem, or the folder's name for "…/result.json"
/// and folders; the path as given where two names would be the same.
std::vector<std::string> run_labels(const std::vector<std::string>& paths);

}  // namespace sm::report
