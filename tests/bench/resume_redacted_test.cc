// --resume of a run whose stored URL was redacted: the user is asked for the URL again, and the
// resumed run stays redacted (secrets, and the host when the first run dropped it).
#include <sys/wait.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "bench/runner.h"
#include "result/result_json.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string err;
};

// The real binary, as a user runs it (`args` is a shell fragment).
Outcome run_binary(const test::TempDir& dir, const std::string& args) {
  const std::string err = dir.file("stderr.txt");
  const std::string cmd = "'" + std::string(SPEEDMATRIX_BINARY) + "' " + args + " >/dev/null 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::read_file(err)};
}

TEST(ResumeRedacted, AsksForTheUrlAgainAndStaysRedacted) {
  test::ScriptedServer server;
  test::TempDir dir;
  const std::string out = dir.file("run");
  const std::string url = "http://carol:pw-9d2c@127.0.0.1:" + std::to_string(server.port()) + "?api_key=k-4e8b1f";
  RunConfig c;
  c.target.base_url = url;
  c.matrix.contexts = {0};
  c.contexts_given = true;
  c.matrix.concurrency = {1, 2};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 16;
  c.matrix.duration_s = 0.2;
  c.out_dir = out;
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  c.redact_host = true;
  testing::internal::CaptureStdout();
  ASSERT_EQ(run_matrix(c), 0);
  testing::internal::GetCapturedStdout();

  // Pretend the second cell was interrupted.
  const std::string path = out + "/result.json";
  nlohmann::json j = nlohmann::json::parse(test::read_file(path));
  j["decode"][1]["status"] = "interrupted";
  std::ofstream(path) << j.dump(2);

  const Outcome refused = run_binary(dir, "run --resume '" + out + "' --quiet --no-selftest");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("the stored target URL was redacted; give it again with --url"), std::string::npos)
      << refused.err;

  const Outcome resumed = run_binary(dir, "run --resume '" + out + "' --url '" + url + "' --quiet --no-selftest");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const std::string text = test::read_file(path);
  EXPECT_EQ(text.find("pw-9d2c"), std::string::npos) << text;
  EXPECT_EQ(text.find("k-4e8b1f"), std::string::npos) << text;
  EXPECT_EQ(text.find("127.0.0.1"), std::string::npos) << "--redact-host carries over to the resumed run";
  auto result = read_result_file(path);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->resumes, 1);
  EXPECT_EQ(result->decode.at(1).status, CellStatus::Valid);
  EXPECT_EQ(result->hardware.hostname, "<redacted-host>");
}

}  // namespace
}  // namespace sm
