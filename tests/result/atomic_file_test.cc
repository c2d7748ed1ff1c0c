#include "result/atomic_file.h"

#include <fcntl.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

int open_descriptors() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

// The real calls, except the ones a test makes fail; remembers the temporary file's descriptor
// and how often close() was called on it.
struct FailingOps {
  FileOps ops = posix_file_ops();
  int opened_fd = -1;
  int closes = 0;

  FailingOps() {
    ops.open = [this](const char* path, int flags, mode_t mode) {
      opened_fd = posix_file_ops().open(path, flags, mode);
      return opened_fd;
    };
    ops.close = [this](int fd) {
      ++closes;
      return posix_file_ops().close(fd);
    };
  }
};

int fail_with_eio() {
  errno = EIO;
  return -1;
}

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("result.json");
    std::ofstream(path_) << "old";
  }
  // A failed write leaves the old file, no temporary file, and no descriptor open.
  void expect_failed_cleanly(const Result<void>& written, const FailingOps& f, const char* step) {
    ASSERT_FALSE(written.has_value());
    EXPECT_NE(written.error().message.find(step), std::string::npos) << written.error().message;
    EXPECT_NE(written.error().message.find(std::strerror(EIO)), std::string::npos) << written.error().message;
    EXPECT_EQ(test::read_file(path_), "old");
    EXPECT_FALSE(fs::exists(path_ + ".tmp"));
    EXPECT_EQ(open_descriptors(), descriptors_before_);
    if (f.opened_fd >= 0) {
      EXPECT_FALSE(is_open(f.opened_fd));
      EXPECT_EQ(f.closes, 1) << "closed exactly once";
    }
  }

  test::TempDir dir_;
  std::string path_;
  const int descriptors_before_ = open_descriptors();
};

TEST_F(AtomicFile, ReplacesTheWholeFileAndLeavesNothingOpen) {
  FailingOps f;
  ASSERT_TRUE(write_file_atomic(path_, "new contents", f.ops).has_value());
  EXPECT_EQ(test::read_file(path_), "new contents");
  EXPECT_FALSE(fs::exists(path_ + ".tmp"));
  EXPECT_EQ(open_descriptors(), descriptors_before_);
  EXPECT_EQ(f.closes, 1);
}

TEST_F(AtomicFile, FailedFsyncClosesTheDescriptor) {
  FailingOps f;
  f.ops.fsync = [](int) { return fail_with_eio(); };
  expect_failed_cleanly(write_file_atomic(path_, "new", f.ops), f, "cannot flush");
}

TEST_F(AtomicFile, FailedWriteClosesAndRemovesTheTemporaryFile) {
  FailingOps f;
  f.ops.write = [](int, const void*, size_t) -> ssize_t { return fail_with_eio(); };
  expect_failed_cleanly(write_file_atomic(path_, "new", f.ops), f, "cannot write");
}

TEST_F(AtomicFile, FailedCloseDoesNotCloseTwice) {
  FailingOps f;
  f.ops.close = [&f](int fd) {
    ++f.closes;
    posix_file_ops().close(fd);  // Linux: the descriptor is released even when close reports EIO
    return fail_with_eio();
  };
  expect_failed_cleanly(write_file_atomic(path_, "new", f.ops), f, "cannot close");
}

TEST_F(AtomicFile, FailedRenameRemovesTheTemporaryFile) {
  FailingOps f;
  f.ops.rename = [](const char*, const char*) { return fail_with_eio(); };
  expect_failed_cleanly(write_file_atomic(path_, "new", f.ops), f, "cannot rename");
}

TEST_F(AtomicFile, FailedOpenCreatesNothing) {
  FailingOps f;
  f.ops.open = [](const char*, int, mode_t) { return fail_with_eio(); };
  expect_failed_cleanly(write_file_atomic(path_, "new", f.ops), f, "cannot create");
  EXPECT_FALSE(write_file_atomic(dir_.file("missing/x.json"), "x").has_value());
  EXPECT_FALSE(fs::exists(dir_.file("missing")));
}

}  // namespace
}  // namespace sm
