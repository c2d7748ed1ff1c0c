#include "upload/run_upload.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <chrono>
#include <filesystem>

#include "bench/run_folder.h"
#include "core/clock.h"
#include "upload/ranking_note.h"
#include "upload/upload_client.h"

namespace sm::upload {

namespace fs = std::filesystem;

std::string find_run_folder(const std::string& out_dir, int64_t started_unix_ms) {
  std::error_code ec;
  if (!out_dir.empty()) return fs::exists(fs::path(out_dir) / kResultFile, ec) ? out_dir : std::string();
  const auto not_before = fs::file_time_type::clock::now() -
                          std::chrono::milliseconds(std::max<int64_t>(0, wall_clock_unix_ms() - started_unix_ms) + 2000);
  std::string best;
  fs::file_time_type best_time{};
  for (auto it = fs::directory_iterator("runs", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path result = it->path() / kResultFile;
    auto t = fs::last_write_time(result, ec);
    if (ec) {
      ec.clear();
      continue;
    }
    if (t >= not_before && (best.empty() || t > best_time)) {
      best = it->path().string();
      best_time = t;
    }
  }
  return best;
}

std::string upload_token_from(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* t = std::getenv("SPEEDMATRIX_UPLOAD_TOKEN"); t && *t) return t;
  return {};
}

int upload_after_run(const std::string& out_dir, int64_t started_unix_ms, const std::string& site_url,
                     const std::string& token, int run_exit_code, bool redact_host) {
  if (run_exit_code != 0) {
    std::fprintf(stderr, "speedmatrix run: not uploaded: the run did not finish\n");
    return run_exit_code;
  }
  const std::string folder = find_run_folder(out_dir, started_unix_ms);
  if (folder.empty()) {
    std::fprintf(stderr, "speedmatrix run: not uploaded: cannot find the run folder; use `speedmatrix upload`\n");
    return 1;
  }
  UploadOptions options;
  options.site_url = site_url;
  options.token = token;
  options.redact.drop_host = redact_host;
  auto sent = upload_result_file(folder, options);
  if (!sent) {
    std::fprintf(stderr, "speedmatrix run: %s\n  send it again with: speedmatrix upload --pending %s\n",
                 sent.error().message.c_str(), folder.c_str());
    return 1;
  }
  std::fprintf(stderr, "speedmatrix run: uploaded %s%s: %s\n", sent->run_id.c_str(),
               sent->already_stored ? " (already there)" : "", sent->run_url.c_str());
  if (const std::string note = ranking_note(*sent); !note.empty()) std::fprintf(stderr, "  %s\n", note.c_str());
  return run_exit_code;
}

}  // namespace sm::upload
