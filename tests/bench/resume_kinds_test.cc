// Every kind of run survives a SIGKILL in the middle of a cell: the built-in engine (no --url),
// a server started with --launch (which must die with the run), and a --url server that went
// away (a clear message). The --url case with the server still there is in resume_test.cc.
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "result/result_json.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

extern char** environ;

namespace sm {
namespace {

// Starts `args` with stdout to /dev/null and stderr to `stderr_path` (or /dev/null).
pid_t spawn(const std::vector<std::string>& args, const std::string& stderr_path = "/dev/null") {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int valid_decode_cells(const std::string& result_path) {
  auto r = read_result_file(result_path);
  if (!r) return 0;
  int valid = 0;
  for (const auto& c : r->decode) valid += c.status == CellStatus::Valid;
  return valid;
}

// SIGKILLs `run` as soon as its result.json shows a first finished decode cell: the run is then
// inside the next cell. Driven by the folder's rename events (the result is written by rename),
// not by time. False if the run ended first.
bool kill_after_first_cell(pid_t run, const std::string& dir) {
  const int in = inotify_init1(IN_CLOEXEC);
  if (in < 0) return false;
  // The run creates its folder: watch the parent until it exists, then the folder itself.
  const std::string parent = std::filesystem::path(dir).parent_path().string();
  inotify_add_watch(in, parent.c_str(), IN_CREATE | IN_MOVED_TO);
  bool watching_dir = false;
  bool killed = false;
  while (!killed) {
    if (!watching_dir && std::filesystem::exists(dir))
      watching_dir = inotify_add_watch(in, dir.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE) >= 0;
    if (valid_decode_cells(dir + "/result.json") >= 1) {
      killed = kill(run, SIGKILL) == 0;
      break;
    }
    int status = 0;
    if (waitpid(run, &status, WNOHANG) == run) break;  // ended before: nothing to kill
    pollfd p{in, POLLIN, 0};
    if (poll(&p, 1, 1000) > 0) {
      char buf[4096];
      (void)read(in, buf, sizeof buf);
    }
  }
  close(in);
  return killed;
}

void expect_every_cell_once_valid(const RunResult& r, size_t cells) {
  std::set<std::pair<int64_t, int64_t>> seen;
  for (const auto& c : r.decode) {
    EXPECT_TRUE(seen.insert({c.context, c.concurrency}).second) << "cell present twice";
    EXPECT_EQ(c.status, CellStatus::Valid) << c.context << "x" << c.concurrency << ": " << c.error;
    EXPECT_TRUE(c.total_tok_s.has_value());
  }
  EXPECT_EQ(seen.size(), cells);
  EXPECT_EQ(r.resumes, 1);
  EXPECT_FALSE(r.finished_at.empty());
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  close(fd);
  return ntohs(sa.sin_port);
}

// Processes (not zombies: a container's init may never reap them) whose process group is `pgid`.
std::vector<pid_t> live_group_members(pid_t pgid) {
  std::vector<pid_t> members;
  DIR* proc = opendir("/proc");
  if (!proc) return members;
  while (dirent* e = readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t close_paren = text.rfind(')');
    if (close_paren == std::string::npos) continue;
    std::istringstream rest(text.substr(close_paren + 1));
    char state = 0;
    pid_t ppid = 0, group = 0;
    rest >> state >> ppid >> group;
    if (group == pgid && state != 'Z' && state != 'X') members.push_back(pid);
  }
  closedir(proc);
  return members;
}

const std::vector<std::string> kSmallMatrix = {"--contexts",   "0,1K", "--concurrency", "1,2", "--prefill-contexts",
                                               "none",         "--duration", "0.5", "--max-output", "64",
                                               "--quiet",      "--no-selftest", "--no-telemetry"};

// No --url: the built-in engine. The resume starts it again (on a new port), not the dead one.
TEST(ResumeKinds, EmbeddedEngineRunResumesAfterSigkill) {
  test::TempDir dir;
  const std::string out = dir.file("run");
  std::vector<std::string> first = {SPEEDMATRIX_BINARY, "run", "--out", out};
  first.insert(first.end(), kSmallMatrix.begin(), kSmallMatrix.end());
  const pid_t run = spawn(first);
  ASSERT_TRUE(kill_after_first_cell(run, out)) << "the run ended before its first cell was saved";
  EXPECT_EQ(wait_exit(run), 128 + SIGKILL);
  auto partial = read_result_file(out + "/result.json");
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->settings.target, "embedded");
  ASSERT_EQ(partial->decode.size(), 4u);
  const double kept = *partial->decode[0].total_tok_s;

  const std::string err = dir.file("resume.err");
  const pid_t resumed = spawn({SPEEDMATRIX_BINARY, "run", "--resume", out, "--quiet", "--no-selftest"}, err);
  EXPECT_EQ(wait_exit(resumed), 0) << test::read_file(err);
  auto r = read_result_file(out + "/result.json");
  ASSERT_TRUE(r);
  expect_every_cell_once_valid(*r, 4);
  EXPECT_EQ(*r->decode[0].total_tok_s, kept);
  EXPECT_EQ(r->kind, "simulated");

  // The engine is started again: pointing it elsewhere is a new run, not a resume.
  const pid_t refused = spawn({SPEEDMATRIX_BINARY, "run", "--resume", out, "--url", "http://127.0.0.1:1"}, err);
  EXPECT_EQ(wait_exit(refused), 2);
  EXPECT_NE(test::read_file(err).find("built-in simulated engine"), std::string::npos) << test::read_file(err);
}

// --launch: SIGKILL the run mid-cell; the launched group (the shell and the server it started
// as a child) is gone within 2 s; --resume launches it again and finishes the matrix.
TEST(ResumeKinds, LaunchedServerDiesWithTheRunAndTheResumeRelaunchesIt) {
  test::TempDir dir;
  const std::string out = dir.file("run");
  const std::string pid_file = dir.file("group.pid");
  const int port = free_port();
  // "; true" keeps the shell alive with the server as its child, as multi-command launch lines do.
  const std::string launch =
      fmt::format("echo $$ > {}; {} sim --listen 127.0.0.1:{}; true", pid_file, SPEEDMATRIX_BINARY, port);
  const std::string url = fmt::format("http://127.0.0.1:{}", port);
  std::vector<std::string> first = {SPEEDMATRIX_BINARY, "run", "--launch", launch, "--url", url, "--out", out};
  first.insert(first.end(), kSmallMatrix.begin(), kSmallMatrix.end());
  const pid_t run = spawn(first);
  ASSERT_TRUE(kill_after_first_cell(run, out)) << "the run ended before its first cell was saved";
  const auto killed_at = std::chrono::steady_clock::now();
  EXPECT_EQ(wait_exit(run), 128 + SIGKILL);

  const pid_t group = static_cast<pid_t>(std::atoi(test::read_file(pid_file).c_str()));
  ASSERT_GT(group, 1);
  std::vector<pid_t> left = live_group_members(group);
  while (!left.empty() && std::chrono::steady_clock::now() - killed_at < std::chrono::seconds(2)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = live_group_members(group);
  }
  EXPECT_TRUE(left.empty()) << left.size() << " process(es) of the launched group still run 2 s after the run was killed";
  for (pid_t p : left) kill(p, SIGKILL);

  auto partial = read_result_file(out + "/result.json");
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->settings.target, "launched");
  const std::string err = dir.file("resume.err");
  const pid_t resumed = spawn({SPEEDMATRIX_BINARY, "run", "--resume", out, "--quiet", "--no-selftest"}, err);
  EXPECT_EQ(wait_exit(resumed), 0) << test::read_file(err);
  auto r = read_result_file(out + "/result.json");
  ASSERT_TRUE(r);
  expect_every_cell_once_valid(*r, 4);
  EXPECT_TRUE(live_group_members(static_cast<pid_t>(std::atoi(test::read_file(pid_file).c_str()))).empty())
      << "the resumed run stopped its server";
}

// A launch whose port is already taken says so before starting anything.
TEST(ResumeKinds, LaunchOnATakenPortSaysSo) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  ASSERT_EQ(listen(fd, 8), 0);
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  const int port = ntohs(sa.sin_port);
  test::TempDir dir;
  const std::string marker = dir.file("started");
  const std::string err = dir.file("err");
  const pid_t run = spawn({SPEEDMATRIX_BINARY, "run", "--launch", fmt::format("touch {}; sleep 30 --port {}", marker, port),
                           "--out", dir.file("run"), "--quiet", "--no-selftest"},
                          err);
  EXPECT_EQ(wait_exit(run), 1);
  close(fd);
  const std::string text = test::read_file(err);
  EXPECT_NE(text.find(fmt::format("port {} on 127.0.0.1 is already taken", port)), std::string::npos) << text;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the launch command was started anyway";
}

// --url: the server is gone when the run is resumed: a message that says what to do.
TEST(ResumeKinds, UrlRunWhoseServerIsGoneGetsAClearMessage) {
  test::TempDir dir;
  const std::string out = dir.file("run");
  {
    test::ScriptedServer server;
    std::vector<std::string> first = {SPEEDMATRIX_BINARY, "run", "--url", server.url(), "--out", out};
    first.insert(first.end(), kSmallMatrix.begin(), kSmallMatrix.end());
    const pid_t run = spawn(first);
    ASSERT_TRUE(kill_after_first_cell(run, out));
    EXPECT_EQ(wait_exit(run), 128 + SIGKILL);
  }  // the server goes away
  const std::string err = dir.file("resume.err");
  const pid_t resumed =
      spawn({SPEEDMATRIX_BINARY, "run", "--resume", out, "--quiet", "--no-selftest", "--connect-timeout", "2"}, err);
  EXPECT_EQ(wait_exit(resumed), 1);
  const std::string text = test::read_file(err);
  EXPECT_NE(text.find("the interrupted run's server does not answer"), std::string::npos) << text;
  EXPECT_NE(text.find("give --url where it runs now"), std::string::npos) << text;
  auto r = read_result_file(out + "/result.json");
  ASSERT_TRUE(r);
  EXPECT_EQ(valid_decode_cells(out + "/result.json"), 1) << "the finished cell is kept";
}

}  // namespace
}  // namespace sm
