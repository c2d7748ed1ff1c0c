#include "result/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace sm {

const FileOps& posix_file_ops() {
  static const FileOps ops{
      .open = [](const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); },
      .write = [](int fd, const void* data, size_t size) { return ::write(fd, data, size); },
      .fsync = [](int fd) { return ::fsync(fd); },
      .close = [](int fd) { return ::close(fd); },
      .rename = [](const char* from, const char* to) { return ::rename(from, to); },
  };
  return ops;
}

Result<void> write_file_atomic(const std::string& path, const std::string& text, const FileOps& ops) {
  const std::string tmp = path + ".tmp";
  int fd = ops.open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail(ErrorCode::Io, fmt::format("cannot create {}: {}", tmp, std::strerror(errno)));
  // Every failure from here on: the descriptor is closed (once) and the temporary file removed.
  auto give_up = [&](const char* what, int err) {
    if (fd >= 0) ops.close(fd);
    ::unlink(tmp.c_str());
    return fail(ErrorCode::Io, fmt::format("cannot {} {}: {}", what, tmp, std::strerror(err)));
  };
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ops.write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return give_up("write", errno);
    }
    done += static_cast<size_t>(n);
  }
  if (ops.fsync(fd) != 0) return give_up("flush", errno);
  const int closed = ops.close(fd);
  const int close_err = errno;
  fd = -1;  // closed, even when close() reports an error: never close it twice
  if (closed != 0) return give_up("close", close_err);
  if (ops.rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return fail(ErrorCode::Io, fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(err)));
  }
  return {};
}

}  // namespace sm
