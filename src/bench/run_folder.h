#pragma once
// The run folder: result.json (journaled after every cell), the reports, and the server log.
#include <string>

#include "core/error.h"

namespace sm {

/// A new run id: UTC timestamp plus 8 random hex digits, e.g. "20261202T143448Z-3f9a2c1e".
std::string new_run_id(int64_t unix_ms);

/// "runs/<yyyymmdd-hhmmss>-<model>" with the model reduced to safe file-name characters.
std::string default_run_dir(int64_t unix_ms, const std::string& model);

/// Creates the folder (and parents). Refuses a folder that already holds a result.json, so a
/// finished run is never overwritten by accident.
Result<void> create_run_folder(const std::string& dir);

inline constexpr const char* kResultFile = "result.json";

}  // namespace sm
