#pragma once
// Write-then-rename: readers of a file see the old contents or the new ones, never a partial file.
#include <sys/types.h>

#include <functional>
#include <string>

#include "core/error.h"

namespace sm {

/// The system calls write_file_atomic makes. Tests replace some to make them fail; everything
/// else uses posix_file_ops().
struct FileOps {
  std::function<int(const char* path, int flags, mode_t mode)> open;
  std::function<ssize_t(int fd, const void* data, size_t size)> write;
  std::function<int(int fd)> fsync;
  std::function<int(int fd)> close;
  std::function<int(const char* from, const char* to)> rename;
};

/// The real ::open, ::write, ::fsync, ::close and ::rename.
const FileOps& posix_file_ops();

/// Writes `text` to `path` through a temporary file in the same folder (`path` + ".tmp"), fsync
/// and rename. On any failure the temporary file is removed, its descriptor closed, and `path`
/// left as it was; the error names the step and the reason.
Result<void> write_file_atomic(const std::string& path, const std::string& text,
                               const FileOps& ops = posix_file_ops());

}  // namespace sm
