#include "upload/run_upload.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "bench/run_folder.h"
#include "upload/ranking_note.h"
#include "upload/upload_client.h"

namespace sm::upload {

namespace fs = std::filesystem;

std::string upload_token_from(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* t = std::getenv("SPEEDMATRIX_UPLOAD_TOKEN"); t && *t) return t;
  return {};
}

int upload_after_run(const std::string& run_folder, const std::string& site_url, const std::string& token,
                     int run_exit_code, bool redact_host) {
  if (run_exit_code != 0) {
    std::fprintf(stderr, "speedmatrix run: not uploaded: the run did not finish\n");
    return run_exit_code;
  }
  const std::string& folder = run_folder;
  std::error_code ec;
  if (folder.empty() || !fs::exists(fs::path(folder) / kResultFile, ec)) {
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
