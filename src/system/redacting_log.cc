#include "system/redacting_log.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>

namespace sm {

namespace {

// A line longer than this is written in pieces (a server printing one huge line must not grow
// the buffer without bound); a secret across a piece's edge is the price.
constexpr size_t kMaxLineBytes = 64 * 1024;

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

RedactingLog::~RedactingLog() { finish(0); }

Result<int> RedactingLog::start(const std::string& path, RedactOptions options) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return fail(ErrorCode::Io, fmt::format("pipe: {}", std::strerror(errno)));
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return fail(ErrorCode::Io, fmt::format("cannot open server log {}: {}", path, std::strerror(e)));
  }
  fd_ = fd;
  path_ = path;
  read_fd_ = fds[0];
  options_ = std::move(options);
  stop_ = false;
  writer_ = std::thread([this] { run(); });
  return fds[1];
}

void RedactingLog::write_line(std::string_view line) {
  const std::string redacted = redact_text(line, options_);
  std::lock_guard lock(mutex_);
  if (fd_ >= 0) write_all(fd_, redacted);
}

void RedactingLog::run() {
  std::string pending;
  char buf[16384];
  while (true) {
    struct pollfd p {read_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) {
      if (stop_) break;
      continue;
    }
    const ssize_t n = ::read(read_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // every writer closed its end
    pending.append(buf, static_cast<size_t>(n));
    if (stop_) break;
    size_t from = 0;
    for (size_t nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n', from)) {
      write_line(std::string_view(pending).substr(from, nl + 1 - from));
      from = nl + 1;
    }
    pending.erase(0, from);
    if (pending.size() > kMaxLineBytes) {
      write_line(pending);
      pending.clear();
    }
  }
  if (!pending.empty()) write_line(pending);
}

Result<void> RedactingLog::move_to(const std::string& path) {
  std::lock_guard lock(mutex_);
  if (fd_ < 0) return fail(ErrorCode::InvalidArgument, "the server log is not open");
  if (::rename(path_.c_str(), path.c_str()) == 0) {
    path_ = path;  // the open descriptor follows the file
    return {};
  }
  if (errno != EXDEV) return fail(ErrorCode::Io, fmt::format("cannot move the server log to {}: {}", path, std::strerror(errno)));
  // Another file system: copy what is written so far, then write to the copy.
  const int to = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (to < 0) return fail(ErrorCode::Io, fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  const int from = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  bool ok = from >= 0;
  char buf[65536];
  while (ok) {
    const ssize_t n = ::read(from, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    ok = write_all(to, std::string_view(buf, static_cast<size_t>(n)));
  }
  if (from >= 0) ::close(from);
  if (!ok) {
    ::close(to);
    ::unlink(path.c_str());
    return fail(ErrorCode::Io, fmt::format("cannot copy the server log to {}", path));
  }
  ::close(fd_);
  ::unlink(path_.c_str());
  fd_ = to;
  path_ = path;
  return {};
}

void RedactingLog::finish(double timeout_s) {
  if (writer_.joinable()) {
    // The thread ends at the pipe's end; past the timeout (a process outside the group still
    // holds the write end) it is told to stop.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
      struct pollfd p {read_fd_, 0, 0};
      if (::poll(&p, 1, 0) > 0 && (p.revents & POLLHUP) && !(p.revents & POLLIN)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    stop_ = true;
    writer_.join();
  }
  if (read_fd_ >= 0) ::close(read_fd_);
  read_fd_ = -1;
  std::lock_guard lock(mutex_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string RedactingLog::path() const {
  std::lock_guard lock(mutex_);
  return path_;
}

}  // namespace sm
