#include "system/server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
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

Result<void> ServerProcess::start(const std::string& command, const std::string& log_path) {
  log_path_ = log_path;
  int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return fail(ErrorCode::Io, fmt::format("cannot open server log {}: {}", log_path, std::strerror(errno)));
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log_fd);
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
  return {};
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
  std::ifstream in(log_path_);
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
      std::string how = WIFEXITED(exit_status_) ? fmt::format("exited with status {}", WEXITSTATUS(exit_status_))
                                                : fmt::format("was killed by signal {}", WTERMSIG(exit_status_));
      return fail(ErrorCode::Network, fmt::format("the launched server {} before it became healthy; last log lines "
                                                  "({}):\n{}",
                                                  how, log_path_, log_tail(20)));
    }
    auto r = http_fetch(HttpRequest{health_url, "", {}}, FetchOptions{2, 1, 1 << 20, connection});
    if (r && r->status == 200) return {};
    last = r ? fmt::format("HTTP {}", r->status) : r.error().message;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return fail(ErrorCode::Timeout, fmt::format("the launched server was not healthy after {:.0f} s ({} answered: {}); "
                                              "last log lines ({}):\n{}",
                                              timeout_s, health_url, last, log_path_, log_tail(20)));
}

void ServerProcess::stop(double grace_s) {
  if (pid_ <= 0) return;
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
}

int port_from_command(const std::string& command) {
  static const std::regex re(R"((?:^|\s)--port(?:=|\s+)(\d+))");
  std::smatch m;
  if (std::regex_search(command, m, re)) return std::stoi(m[1].str());
  return 0;
}

}  // namespace sm
