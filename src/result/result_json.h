#pragma once
// result.json: RunResult <-> JSON, and write-then-rename so a crash never leaves half a file.
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "result/atomic_file.h"
#include "result/result.h"

namespace sm {

nlohmann::json to_json(const RunResult& result);
/// The `hardware` (and `client_hardware`) object of result.json; also the body of a hardware
/// file (result/hardware_file.h).
nlohmann::json hardware_to_json(const HardwareInfo& hardware);
Result<HardwareInfo> hardware_from_json(const nlohmann::json& json);
Result<RunResult> result_from_json(const nlohmann::json& json);

/// Reads and validates a result file.
Result<RunResult> read_result_file(const std::string& path);

/// to_json + write_file_atomic.
Result<void> write_result_file(const std::string& path, const RunResult& result);

}  // namespace sm
