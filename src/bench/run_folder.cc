#include "bench/run_folder.h"

#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <random>

namespace sm {

namespace {
std::string utc(int64_t unix_ms, const char* format) {
  std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm_utc{};
  gmtime_r(&secs, &tm_utc);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, format, &tm_utc);
  return std::string(buf, n);
}
}  // namespace

std::string new_run_id(int64_t unix_ms) {
  std::random_device rd;
  return fmt::format("{}-{:08x}", utc(unix_ms, "%Y%m%dT%H%M%SZ"), rd());
}

std::string default_run_dir(int64_t unix_ms, const std::string& model) {
  std::string safe;
  // Keep the last path component of a model path ("/models/x.gguf" -> "x.gguf").
  std::string name = model.substr(model.find_last_of('/') == std::string::npos ? 0 : model.find_last_of('/') + 1);
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    safe.push_back(ok ? c : '_');
  }
  if (safe.empty()) safe = "model";
  if (safe.size() > 64) safe.resize(64);
  return fmt::format("runs/{}-{}", utc(unix_ms, "%Y%m%d-%H%M%S"), safe);
}

Result<void> create_run_folder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(ErrorCode::Io, fmt::format("cannot create run folder {}: {}", dir, ec.message()));
  if (fs::exists(fs::path(dir) / kResultFile))
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{} already holds a result.json: choose another --out, or --resume {} to continue it", dir, dir));
  return {};
}

}  // namespace sm
