#include "result/hardware_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "result/result_json.h"

namespace sm {

using nlohmann::json;

json hardware_file_json(const HardwareFile& file) {
  return {{"schema", kHardwareFileSchema},
          {"tool", {{"name", "speedmatrix"}, {"version", file.tool_version}}},
          {"probed_at", file.probed_at},
          {"hardware", hardware_to_json(file.hardware)}};
}

Result<HardwareFile> hardware_file_from_json(const json& j, std::string_view origin) {
  const auto not_one = [&] {
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{} is not a speedmatrix hardware file (it needs \"schema\": \"{}\" and a \"hardware\" "
                            "object); write one with `speedmatrix hardware --out FILE` on the server's machine",
                            origin, kHardwareFileSchema));
  };
  if (!j.is_object()) return not_one();
  auto schema = j.find("schema");
  if (schema == j.end() || !schema->is_string() || schema->get<std::string>() != kHardwareFileSchema) return not_one();
  auto hw_json = j.find("hardware");
  if (hw_json == j.end() || !hw_json->is_object()) return not_one();
  auto hw = hardware_from_json(*hw_json);
  if (!hw) return fail(hw.error().code, fmt::format("{}: {}", origin, hw.error().message));
  if (hw->gpus.empty() && hw->cpu_model.empty())
    return fail(ErrorCode::InvalidArgument, fmt::format("{} describes neither a GPU nor a CPU", origin));
  HardwareFile file;
  file.hardware = std::move(*hw);
  if (auto it = j.find("probed_at"); it != j.end() && it->is_string()) file.probed_at = it->get<std::string>();
  if (auto tool = j.find("tool"); tool != j.end() && tool->is_object())
    if (auto v = tool->find("version"); v != tool->end() && v->is_string()) file.tool_version = v->get<std::string>();
  return file;
}

Result<HardwareFile> read_hardware_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return fail(ErrorCode::Io, fmt::format("cannot read {}: it is a folder, not a file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::Io, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  json j = json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) return fail(ErrorCode::InvalidArgument, fmt::format("{} is not valid JSON", path));
  return hardware_file_from_json(j, path);
}

Result<void> write_hardware_file(const std::string& path, const HardwareFile& file) {
  return write_file_atomic(path, hardware_file_json(file).dump(2) + "\n");
}

}  // namespace sm
