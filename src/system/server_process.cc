#include "system/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "core/interrupt.h"
#include "net/http_fetch.h"

namespace sm {

ServerProcess::~ServerProcess() { stop(); }

namespace {

// The guard's whole life, in the forked child (async-signal-safe calls only: the parent may
// have had other threads). It blocks until the parent's end of the pipe closes — the parent
// stopped the server, exited, or was killed, even by SIGKILL — then ends the server's process
// group: SIGTERM, up to 0.5 s to exit, SIGKILL to whatever is left.
[[noreturn]] void guard_process_group(int read_fd, pid_t group) {
  // Its own process group, and deaf to the signals a terminal or a closed SSH session sends:
  // they are what kills the parent, and the guard must outlive it.
  ::setpgid(0, 0);
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  ::signal(SIGQUIT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);
  // Hold nothing of the parent's open but the pipe (sockets, the result file, the port).
  if (read_fd != 3) {
    ::dup2(read_fd, 3);
    read_fd = 3;
  }
  ::syscall(SYS_close_range, 4U, ~0U, 0U);
  for (int fd = 0; fd < 3; ++fd) ::close(fd);
  char byte;
  while (true) {
    ssize_t n = ::read(read_fd, &byte, 1);
    if (n == 0) break;              // every write end closed: the parent is gone or done
    if (n < 0 && errno != EINTR) break;
  }
  if (::kill(-group, SIGTERM) == 0) {
    const struct timespec tick = {0, 10'000'000};
    for (int i = 0; i < 50 && ::kill(-group, 0) == 0; ++i) ::nanosleep(&tick, nullptr);
    ::kill(-group, SIGKILL);
  }
  _exit(0);
}

}  // namespace

Result<void> ServerProcess::start(const std::string& command, const std::string& log_path, RedactOptions secrets) {
  auto write_end = log_.start(log_path, std::move(secrets));
  if (!write_end) return std::unexpected(write_end.error());
  const int log_fd = *write_end;
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log_fd);
    log_.finish(0);
    return fail(ErrorCode::Io, fmt::format("fork failed: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    // Child: own process group (a terminal Ctrl-C reaches only speedmatrix, which stops us in
    // order), output to the log, stdin from /dev/null.
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ::setpgid(pid, pid);
  ::close(log_fd);
  pid_ = pid;
  exit_status_ = -1;
  start_guard();
  return {};
}

// The launched group must die with the run, however the run ends (docs/ARCHITECTURE.md,
// "Launched servers"): a guard process holds the read end of a pipe whose only write end is
// this process's (close-on-exec, so no server inherits it). PR_SET_PDEATHSIG alone would
// cover the shell, not the processes it starts.
void ServerProcess::start_guard() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;  // no guard: stop() and the destructor still work
  pid_t guard = ::fork();
  if (guard < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return;
  }
  if (guard == 0) {
    ::close(fds[1]);
    guard_process_group(fds[0], pid_);
  }
  ::close(fds[0]);
  guard_pid_ = guard;
  guard_fd_ = fds[1];
}

void ServerProcess::stop_guard() {
  if (guard_fd_ >= 0) ::close(guard_fd_);
  guard_fd_ = -1;
  if (guard_pid_ > 0) {
    int status = 0;
    while (::waitpid(guard_pid_, &status, 0) < 0 && errno == EINTR) {}
  }
  guard_pid_ = -1;
}

bool ServerProcess::running() {
  if (pid_ <= 0 || exit_status_ >= 0) return false;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    exit_status_ = status;
    return false;
  }
  return true;
}

std::string ServerProcess::log_tail(int lines) const {
  std::ifstream in(log_.path());
  std::vector<std::string> all;
  std::string line;
  while (std::getline(in, line)) all.push_back(line);
  std::ostringstream out;
  size_t from = all.size() > static_cast<size_t>(lines) ? all.size() - static_cast<size_t>(lines) : 0;
  for (size_t i = from; i < all.size(); ++i) out << "  | " << all[i] << "\n";
  return out.str();
}

Result<void> ServerProcess::wait_healthy(const std::string& health_url, double timeout_s,
                                         const ConnectionOptions& connection) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    if (interrupt_requested()) return fail(ErrorCode::Interrupted, "interrupted while waiting for the server");
    if (!running()) {
      log_.finish(1.0);  // its last lines, which say why
      std::string how = WIFEXITED(exit_status_) ? fmt::format("exited with status {}", WEXITSTATUS(exit_status_))
                                                : fmt::format("was killed by signal {}", WTERMSIG(exit_status_));
      return fail(ErrorCode::Network, fmt::format("the launched server {} before it became healthy; last log lines "
                                                  "({}):\n{}",
                                                  how, log_.path(), log_tail(20)));
    }
    auto r = http_fetch(HttpRequest{health_url, "", {}}, FetchOptions{2, 1, 1 << 20, connection});
    if (r && r->status == 200) return {};
    last = r ? fmt::format("HTTP {}", r->status) : r.error().message;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return fail(ErrorCode::Timeout, fmt::format("the launched server was not healthy after {:.0f} s ({} answered: {}); "
                                              "last log lines ({}):\n{}",
                                              timeout_s, health_url, last, log_.path(), log_tail(20)));
}

void ServerProcess::stop(double grace_s) {
  if (pid_ <= 0) {
    stop_guard();
    return;
  }
  if (running()) {
    ::kill(-pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
    while (running() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (running()) {
      ::kill(-pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      exit_status_ = status;
    }
  }
  ::kill(-pid_, SIGKILL);  // anything the server left behind in its group
  pid_ = -1;
  stop_guard();
  log_.finish(2.0);  // what the server wrote last, up to its pipe's end
}

Result<void> check_port_free(const std::string& host, int port) {
  if (port <= 0) return {};
  const std::string address = host.empty() || host == "localhost" ? "127.0.0.1" : host;
  struct sockaddr_in sa {};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1) return {};  // not a literal IPv4: nothing to check
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {};
  const bool answered = ::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) == 0;
  ::close(fd);
  if (!answered) return {};
  return fail(ErrorCode::InvalidArgument,
              fmt::format("port {} on {} is already taken: something listens there before the server was started "
                          "(a server left from an earlier run? `ss -ltnp 'sport = :{}'` shows which process). Stop it, "
                          "or give the launch command another --port",
                          port, address, port));
}

int port_from_command(const std::string& command) {
  static const std::regex re(R"((?:^|\s)--port(?:=|\s+)(\d+))");
  std::smatch m;
  if (std::regex_search(command, m, re)) return std::stoi(m[1].str());
  return 0;
}

}  // namespace sm
