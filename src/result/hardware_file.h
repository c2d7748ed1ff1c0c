#pragma once
// A hardware file: what `speedmatrix hardware --out FILE` writes on the machine that runs the
// server, and `speedmatrix run --server-hardware FILE` reads on the machine that measures it, so
// a run across the network records the server's hardware rather than the client's.
//
//   {"schema": "speedmatrix-hardware-v1",
//    "tool": {"name": "speedmatrix", "version": "0.1.0", "commit": "..."},
//    "probed_at": "2026-12-02T14:34:48Z",
//    "hardware": { ...result.json's hardware object... }}
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "result/result.h"

namespace sm {

inline constexpr std::string_view kHardwareFileSchema = "speedmatrix-hardware-v1";

/// What a hardware file holds.
struct HardwareFile {
  HardwareInfo hardware;     ///< as probed on the server's machine
  std::string probed_at;     ///< ISO-8601 UTC
  std::string tool_version;  ///< speedmatrix version that wrote it
};

nlohmann::json hardware_file_json(const HardwareFile& file);

/// Checks and reads a hardware file's JSON; `origin` (a path) names it in errors. Fails when it
/// is not a hardware file, or describes neither a GPU nor a CPU.
Result<HardwareFile> hardware_file_from_json(const nlohmann::json& json, std::string_view origin);

/// Reads and checks `path`.
Result<HardwareFile> read_hardware_file(const std::string& path);

/// Writes `file` to `path` atomically.
Result<void> write_hardware_file(const std::string& path, const HardwareFile& file);

}  // namespace sm
