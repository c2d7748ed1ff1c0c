// `speedmatrix upload RESULT.json|RUN_DIR... --to URL --token T` and `upload --pending DIR`:
// sends results to a results site, with retries; what could not be sent stays marked pending.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/connection_flags.h"
#include "upload/ranking_note.h"
#include "upload/run_upload.h"
#include "upload/upload_client.h"

namespace sm::cli {

namespace {

struct UploadFlags {
  std::vector<std::string> paths;
  std::string to;
  std::string token;
  std::string pending_dir;
  int retries = 5;
  double timeout_s = 60;
  bool redact_host = false;
  ConnectionFlags connection;  ///< --cacert, --insecure, --header, --proxy (for the results site)
};

int send(const std::string& path, upload::UploadOptions options) {
  auto sent = upload::upload_result_file(path, options);
  if (!sent) {
    std::fprintf(stderr, "speedmatrix upload: %s: %s\n", path.c_str(), sent.error().message.c_str());
    return kExitFailure;
  }
  std::printf("%s %s: %s\n", sent->already_stored ? "already there" : "uploaded", sent->run_id.c_str(),
              sent->run_url.c_str());
  if (const std::string note = upload::ranking_note(*sent); !note.empty()) std::printf("  %s\n", note.c_str());
  std::fflush(stdout);
  return kExitOk;
}

int run_upload(const UploadFlags& f) {
  upload::UploadOptions options;
  options.site_url = f.to;
  options.token = upload::upload_token_from(f.token);
  options.max_attempts = f.retries + 1;
  options.timeout_s = f.timeout_s;
  options.redact.drop_host = f.redact_host;
  auto connection = to_connection_options(f.connection);
  if (!connection) {
    std::fprintf(stderr, "speedmatrix upload: %s\n", connection.error().message.c_str());
    return kExitUsage;
  }
  options.connection = std::move(*connection);
  if (options.token.empty()) {
    std::fprintf(stderr, "speedmatrix upload: no token: give --token T or set SPEEDMATRIX_UPLOAD_TOKEN\n");
    return kExitUsage;
  }
  if (f.paths.empty() && f.pending_dir.empty()) {
    std::fprintf(stderr, "speedmatrix upload: name a result file or run folder, or --pending DIR\n");
    return kExitUsage;
  }
  if (!f.paths.empty() && f.to.empty()) {
    std::fprintf(stderr, "speedmatrix upload: --to URL of the results site is required\n");
    return kExitUsage;
  }
  int failed = 0;
  for (const auto& path : f.paths) failed += send(path, options) != kExitOk;
  if (!f.pending_dir.empty()) {
    auto pending = upload::find_pending_uploads(f.pending_dir);
    if (!pending) {
      std::fprintf(stderr, "speedmatrix upload: %s\n", pending.error().message.c_str());
      return kExitUsage;
    }
    if (pending->empty()) std::fprintf(stderr, "speedmatrix upload: nothing pending under %s\n", f.pending_dir.c_str());
    for (const auto& p : *pending) {
      upload::UploadOptions o = options;
      if (o.site_url.empty()) o.site_url = p.site_url;  // --to overrides where it was meant to go
      if (o.site_url.empty()) {
        std::fprintf(stderr, "speedmatrix upload: %s names no site; give --to URL\n", p.marker_path.c_str());
        ++failed;
        continue;
      }
      failed += send(p.result_path, o) != kExitOk;
    }
  }
  return failed ? kExitFailure : kExitOk;
}

}  // namespace

void add_upload_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<UploadFlags>();
  CLI::App* cmd = app.add_subcommand("upload", "Send results to a results site (speedmatrix serve)");
  cmd->footer(
      "What is sent is redacted first: API keys, tokens, passwords, Authorization headers and URL\n"
      "credentials are removed, even from result files written by older versions.\n"
      "A result that could not be sent (site down, bad token, ...) keeps upload-pending.json in its\n"
      "run folder, naming the site and the error; --pending DIR sends every such run again.\n"
      "Examples:\n"
      "  speedmatrix upload runs/20261202-143448-qwen/result.json --to http://host:8080 --token smt_...\n"
      "  SPEEDMATRIX_UPLOAD_TOKEN=smt_... speedmatrix upload --pending runs/");
  cmd->add_option("paths", flags->paths, "result.json files or run folders");
  cmd->add_option("--to", flags->to, "Base URL of the results site, e.g. http://host:8080");
  cmd->add_option("--token", flags->token, "Upload token; default $SPEEDMATRIX_UPLOAD_TOKEN");
  cmd->add_option("--pending", flags->pending_dir, "Send every run under DIR marked upload-pending.json");
  cmd->add_option("--retries", flags->retries, "Tries after the first, with exponential backoff (network errors, 429, 5xx)")
      ->capture_default_str();
  cmd->add_option("--timeout", flags->timeout_s, "Seconds one try may take")->capture_default_str();
  add_connection_flags(cmd, flags->connection, false, "the results site");
  cmd->add_flag("--redact-host", flags->redact_host,
                "Also drop hostnames and local paths before sending (API keys, tokens, passwords and URL "
                "credentials are always removed; see `speedmatrix run --help`)");
  cmd->callback([flags, &action] { action = [flags] { return run_upload(*flags); }; });
}

}  // namespace sm::cli
