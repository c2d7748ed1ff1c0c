// A launched server's log is written redacted, line by line, as it runs (issue 31 point 5), and
// can be moved to the run folder while it is written, across file systems too (point 8).
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bench/run_secrets.h"
#include "support/temp_dir.h"
#include "system/redacting_log.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

const std::string kKey = "q8Zr7TxW2mPn";       // no shape a pattern knows: only the literal list finds it
const std::string kPassword = "Hq2Lw9vRt4";
const std::string kHeaderToken = "Xt5Bn8Kd3Wq";

void put(int fd, const std::string& text) { ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size())); }

TEST(RunSecrets, EverySecretARunWasGivenIsRedactedBare) {
  TargetConfig target;
  target.base_url = "http://alice:" + kPassword + "@gpu-box:8000";
  target.api_key = kKey;
  target.connection.headers = {"X-Auth: Bearer " + kHeaderToken};
  const RedactOptions options = run_redact_options(target, target.base_url, false);
  const std::string echoed = "server says: key " + kKey + ", password " + kPassword + ", token " + kHeaderToken;
  const std::string redacted = redact_text(echoed, options);
  for (const std::string& secret : {kKey, kPassword, kHeaderToken})
    EXPECT_EQ(redacted.find(secret), std::string::npos) << redacted;
  EXPECT_EQ(redacted, "server says: key <redacted>, password <redacted>, token <redacted>");
  // Too short to search for without ruining the text: not a secret.
  target.api_key = "abc";
  EXPECT_EQ(redact_text("abc def", run_redact_options(target, target.base_url, false)), "abc def");
}

TEST(RedactingLog, WritesEachLineRedactedAndFollowsAMove) {
  test::TempDir dir;
  RedactingLog log;
  RedactOptions options;
  options.secrets = {kKey};
  auto write_end = log.start(dir.file("first.log"), options);
  ASSERT_TRUE(write_end) << write_end.error().message;
  put(*write_end, "INFO args: --api-key " + kKey + "\nINFO half a li");
  ASSERT_TRUE(log.move_to(dir.file("moved.log")));
  EXPECT_EQ(log.path(), dir.file("moved.log"));
  EXPECT_FALSE(fs::exists(dir.file("first.log")));
  put(*write_end, "ne with " + kKey + " in it\nno newline at the end " + kKey);
  ::close(*write_end);
  log.finish(5.0);
  const std::string text = test::read_file(dir.file("moved.log"));
  EXPECT_EQ(text, "INFO args: --api-key <redacted>\nINFO half a line with <redacted> in it\nno newline at the end <redacted>");
}

TEST(RedactingLog, MovesAcrossFileSystemsByCopying) {
  test::TempDir dir;
  // /dev/shm is a tmpfs on Linux: another file system than the temporary folder, when it is.
  const fs::path other = "/dev/shm";
  struct stat a {}, b {};
  if (::stat(dir.path().c_str(), &a) != 0 || ::stat(other.c_str(), &b) != 0 || a.st_dev == b.st_dev || ::access(other.c_str(), W_OK) != 0)
    GTEST_SKIP() << "no second writable file system here (/dev/shm)";
  const std::string target = (other / ("sm-redacting-log-" + std::to_string(::getpid()) + ".log")).string();
  RedactingLog log;
  auto write_end = log.start(dir.file("server.log"), {});
  ASSERT_TRUE(write_end);
  put(*write_end, "before\n");
  // Whether the writer has appended "before" yet or not, the pipe keeps the order: what was
  // written is copied, what was not follows in the new file.
  auto moved = log.move_to(target);
  ASSERT_TRUE(moved) << moved.error().message;
  EXPECT_FALSE(fs::exists(dir.file("server.log")));
  put(*write_end, "after\n");
  ::close(*write_end);
  log.finish(5.0);
  EXPECT_EQ(test::read_file(target), "before\nafter\n");
  fs::remove(target);
}

}  // namespace
}  // namespace sm
