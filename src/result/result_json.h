#pragma once
// result.json: RunResult <-> JSON, and write-then-rename so a crash never leaves half a file.
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "result/atomic_file.h"
#include "result/result.h"

namespace sm {

nlohmann::json to_json(const RunResult& result);
Result<RunResult> result_from_json(const nlohmann::json& json);

/// Reads and validates a result file.
Result<RunResult> read_result_file(const std::string& path);

/// to_json + write_file_atomic.
Result<void> write_result_file(const std::string& path, const RunResult& result);

}  // namespace sm
