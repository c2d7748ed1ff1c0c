// A run whose URL, API key and launch command carry secrets writes none of them: not in
// result.json, the reports, what it prints, nor (tests/upload) what it uploads.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench/runner.h"
#include "result/result_json.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;
using test::ScriptedServer;

const std::string kUrlPassword = "pw-Zq81Lk";
const std::string kUrlKey = "urlkey-7f3a9c";
const std::string kApiKey = "sk-apikey0123456789abcdef";
const std::string kLaunchKey = "launchkey-55e1d0";
const std::string kHfToken = "hf_abcdefghijklmnopqrstuvwxyzABCD";

// --launch writes the server's log under runs/ in the working folder before the run folder
// exists: run in a temporary folder.
class InFolder {
 public:
  explicit InFolder(const fs::path& dir) : before_(fs::current_path()) { fs::current_path(dir); }
  ~InFolder() { fs::current_path(before_); }

 private:
  fs::path before_;
};

RunConfig secret_config(const ScriptedServer& server, const std::string& out_dir) {
  RunConfig c;
  c.target.base_url = "http://alice:" + kUrlPassword + "@127.0.0.1:" + std::to_string(server.port()) +
                      "?api_key=" + kUrlKey;
  c.target.api_key = kApiKey;
  // A "server" that stays up until stopped; the scripted server answers its /health. It logs
  // the URL's password and the API key bare, as a server echoing its arguments does.
  c.launch_command = "echo " + kUrlPassword + " " + kApiKey + " && HF_TOKEN=" + kHfToken +
                     " sh -c 'sleep 60' serve /home/alice/models/qwen.gguf --api-key " + kLaunchKey + " --port " +
                     std::to_string(server.port());
  c.launch_port_check = false;  // the scripted server already listens on the launched server's port
  c.matrix.contexts = {0};
  c.contexts_given = true;
  c.matrix.concurrency = {1};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 16;
  c.matrix.duration_s = 0.2;
  c.out_dir = out_dir;
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  return c;
}

void expect_no_secret(const std::string& text, const std::string& where) {
  for (const std::string& secret : {kUrlPassword, kUrlKey, kApiKey, kLaunchKey, kHfToken})
    EXPECT_EQ(text.find(secret), std::string::npos) << where << " holds " << secret << ":\n" << text;
}

struct RunOutput {
  int code = -1;
  std::string out, err;
};

RunOutput run_captured(const RunConfig& config) {
  RunOutput r;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  r.code = run_matrix(config);
  r.out = testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

TEST(RunnerSecrets, NothingWrittenOrPrintedHoldsASecret) {
  ScriptedServer server;
  test::TempDir dir;
  InFolder here(dir.path());
  const RunConfig config = secret_config(server, dir.file("run"));
  const RunOutput run = run_captured(config);
  ASSERT_EQ(run.code, 0) << run.err;

  // The secrets were used: the key query parameter and the API key reached the server.
  bool saw_query = false, saw_key = false;
  for (const auto& req : server.all_requests()) {
    saw_query |= req.query == "api_key=" + kUrlKey;
    saw_key |= req.authorization == "Bearer " + kApiKey;
  }
  EXPECT_TRUE(saw_query);
  EXPECT_TRUE(saw_key);

  for (const char* name : {"result.json", "report.md", "report.html", "measurements.csv"}) {
    ASSERT_TRUE(fs::exists(dir.file("run") + "/" + name)) << name;
    expect_no_secret(test::read_file(dir.file("run") + "/" + name), name);
  }
  expect_no_secret(run.out, "stdout");
  expect_no_secret(run.err, "stderr");
  EXPECT_NE(run.err.find("starting the server: echo <redacted> <redacted> && HF_TOKEN=<redacted> sh -c"),
            std::string::npos)
      << run.err;
  // The server's own log, written redacted as it runs, moved into the run folder.
  ASSERT_TRUE(fs::exists(dir.file("run/server.log")));
  const std::string server_log = test::read_file(dir.file("run/server.log"));
  expect_no_secret(server_log, "server.log");
  EXPECT_NE(server_log.find("<redacted> <redacted>"), std::string::npos) << server_log;

  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  const std::string port = std::to_string(server.port());
  EXPECT_EQ(result->target_url, "http://<redacted>@127.0.0.1:" + port + "?api_key=<redacted>");
  EXPECT_EQ(result->launch_command, "echo <redacted> <redacted> && HF_TOKEN=<redacted> sh -c 'sleep 60' serve "
                                    "/home/alice/models/qwen.gguf --api-key <redacted> --port " + port);
  EXPECT_EQ(result->decode.at(0).status, CellStatus::Valid);
  // Without --redact-host the machine's name and paths stay.
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(result->hardware.hostname, host);
}

TEST(RunnerSecrets, RedactHostDropsHostnamesAndLocalPaths) {
  ScriptedServer server;
  test::TempDir dir;
  InFolder here(dir.path());
  RunConfig config = secret_config(server, dir.file("run"));
  config.redact_host = true;
  const RunOutput run = run_captured(config);
  ASSERT_EQ(run.code, 0) << run.err;
  for (const char* name : {"result.json", "report.md", "report.html", "measurements.csv"}) {
    const std::string text = test::read_file(dir.file("run") + "/" + name);
    expect_no_secret(text, name);
    EXPECT_EQ(text.find("127.0.0.1"), std::string::npos) << name << ":\n" << text;
    EXPECT_EQ(text.find("/home/alice"), std::string::npos) << name << ":\n" << text;
  }
  EXPECT_EQ(run.out.find("127.0.0.1"), std::string::npos) << run.out;
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->hardware.hostname, "<redacted-host>");
  EXPECT_EQ(result->target_url, "http://<redacted>@<redacted-host>:" + std::to_string(server.port()) +
                                    "?api_key=<redacted>");
  EXPECT_NE(result->launch_command.find("serve <dir>/qwen.gguf --api-key <redacted>"), std::string::npos)
      << result->launch_command;
}

}  // namespace
}  // namespace sm
