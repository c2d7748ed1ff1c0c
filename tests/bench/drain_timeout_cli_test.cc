// `speedmatrix run --drain-timeout` as a user types it: the real binary.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>

#include "support/temp_dir.h"

namespace sm {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Outcome run_binary(const test::TempDir& dir, const std::string& args) {
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string cmd = "'" + std::string(SPEEDMATRIX_BINARY) + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::read_file(out), test::read_file(err)};
}

TEST(DrainTimeoutCli, HelpExplainsIt) {
  test::TempDir dir;
  Outcome help = run_binary(dir, "run --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--drain-timeout"), std::string::npos);
  EXPECT_NE(help.out.find("no running and no queued requests"), std::string::npos);
}

TEST(DrainTimeoutCli, NegativeIsAUsageError) {
  test::TempDir dir;
  Outcome bad = run_binary(dir, "run --dry-run --drain-timeout -1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--drain-timeout must be 0 or more seconds"), std::string::npos) << bad.err;
  EXPECT_EQ(run_binary(dir, "run --dry-run --drain-timeout 0 --contexts 0 --concurrency 1").exit_code, 0);
}

}  // namespace
}  // namespace sm
