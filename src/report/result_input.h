#pragma once
// Reading the result files `report` and `compare` are given: a result.json, or a run folder
// holding one.
#include <string>
#include <vector>

#include "core/error.h"
#include "result/result.h"

namespace sm::report {

/// The result file a path names: the path itself, or <folder>/result.json for a folder.
std::string result_file_path(const std::string& path_or_folder);

/// Reads and validates the result a path names (see result_file_path), with its secrets redacted
/// (result/redact.h): a file written before redaction existed prints and renders clean.
Result<RunResult> load_result(const std::string& path_or_folder);

/// Short names for runs, one per path: the file's stem, or the folder's name for "…/result.json"
/// and folders; the path as given where two names would be the same.
std::vector<std::string> run_labels(const std::vector<std::string>& paths);

}  // namespace sm::report
