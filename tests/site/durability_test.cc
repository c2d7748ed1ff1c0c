// SIGKILL of `speedmatrix serve` during 50 concurrent uploads loses no run that was
// acknowledged: the server commits before it answers 2xx. Runs the real binary, on SQLite and
// (when SPEEDMATRIX_TEST_PG_DSN is set) on PostgreSQL.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "net/http_fetch.h"
#include "result/result_json.h"
#include "site/site_fixtures.h"
#include "store/postgres_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

constexpr int kUploads = 50;
constexpr int kKillAfterAcks = 20;

// A child process with its stdout on a pipe; killed when destroyed. Movable, not copyable.
struct Child {
  pid_t pid = -1;
  FILE* out = nullptr;

  Child() = default;
  Child(pid_t p, FILE* f) : pid(p), out(f) {}
  Child(Child&& o) noexcept : pid(std::exchange(o.pid, -1)), out(std::exchange(o.out, nullptr)) {}
  Child& operator=(Child&& o) noexcept {
    std::swap(pid, o.pid);
    std::swap(out, o.out);
    return *this;
  }

  static Child spawn(const std::vector<std::string>& args) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return {};
    pid_t pid = fork();
    if (pid == 0) {
      dup2(fds[1], 1);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(fds[1]);
    return Child{pid, fdopen(fds[0], "r")};
  }

  std::string read_line() {
    char buf[512];
    if (!out || !fgets(buf, sizeof buf, out)) return "";
    std::string line(buf);
    while (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
  }

  int wait() {
    int status = 0;
    if (pid > 0) waitpid(pid, &status, 0);
    pid = -1;
    if (out) fclose(out);
    out = nullptr;
    return status;
  }

  void kill_hard() {
    if (pid > 0) ::kill(pid, SIGKILL);
  }

  ~Child() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      wait();
    }
  }
};

std::string run_capture(const std::vector<std::string>& args) {
  Child c = Child::spawn(args);
  std::string line = c.read_line();
  c.wait();
  return line;
}

class DurabilityTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres") {
      const char* dsn = std::getenv("SPEEDMATRIX_TEST_PG_DSN");
      if (!dsn || !*dsn) GTEST_SKIP() << "SPEEDMATRIX_TEST_PG_DSN not set (tests/site/pg_store_test.sh sets it)";
      db_ = dsn;
      auto c = store::open_postgres_connection(db_);
      ASSERT_TRUE(c) << c.error().message;
      for (const char* t : {"runs", "run_capacity", "tokens", "schema_migrations"})
        ASSERT_TRUE((*c)->execute(std::string("DROP TABLE IF EXISTS ") + t + " CASCADE", {}));
    } else {
      db_ = "sqlite:" + dir_.file("durable.db");
    }
  }

  std::string start_server(Child& child) {
    child = Child::spawn({SPEEDMATRIX_BINARY, "serve", "--db", db_, "--listen", "127.0.0.1:0", "--rate-limit", "0",
                          "--threads", "8"});
    std::string line = child.read_line();  // "speedmatrix serve: listening on http://127.0.0.1:PORT"
    size_t at = line.find("http://");
    return at == std::string::npos ? "" : line.substr(at);
  }

  test::TempDir dir_;
  std::string db_;
};

TEST_P(DurabilityTest, SigkillDuringConcurrentUploadsLosesNoAcknowledgedRun) {
  const std::string token = run_capture({SPEEDMATRIX_BINARY, "serve", "token", "create", "--db", db_, "--name", "durability"});
  ASSERT_TRUE(token.starts_with("smt_")) << token;
  Child server;
  const std::string url = start_server(server);
  ASSERT_FALSE(url.empty());

  // Bodies prepared up front so the uploads start together.
  std::vector<std::string> bodies;
  for (int i = 0; i < kUploads; ++i) {
    RunResult r = test::site_result(fmt::format("durable-{:02}", i), fmt::format("Model-{}", i % 5));
    for (int k = 0; k < 40; ++k) r.warnings.push_back(std::string(200, 'w'));  // ~10 KB each
    bodies.push_back(to_json(r).dump());
  }
  std::mutex mutex;
  std::vector<std::string> acknowledged;
  std::atomic<int> acks{0};
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kUploads; ++i) {
    threads.emplace_back([&, i] {
      HttpRequest req;
      req.url = url + "/api/v1/runs";
      req.body = bodies[i];
      req.headers.push_back("Authorization: Bearer " + token);
      ++ready;
      while (!go.load()) std::this_thread::yield();
      auto r = http_fetch(req, {.timeout_s = 20, .connect_timeout_s = 5});
      if (r && (r->status == 200 || r->status == 201)) {
        {
          std::lock_guard lock(mutex);
          acknowledged.push_back(fmt::format("durable-{:02}", i));
        }
        if (++acks == kKillAfterAcks) server.kill_hard();
      }
    });
  }
  while (ready.load() < kUploads) std::this_thread::yield();
  go = true;
  for (auto& t : threads) t.join();
  server.kill_hard();  // already done at the 20th acknowledgement, unless fewer came (then the checks below fail)
  const int status = server.wait();
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the server was not killed mid-way";
  ASSERT_GE(static_cast<int>(acknowledged.size()), kKillAfterAcks);
  std::fprintf(stderr, "[durability] %zu of %d uploads acknowledged before SIGKILL\n", acknowledged.size(), kUploads);

  Child restarted;
  const std::string url2 = start_server(restarted);
  ASSERT_FALSE(url2.empty());
  for (const auto& id : acknowledged) {
    auto r = http_fetch({.url = url2 + "/api/v1/runs/" + id});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->status, 200) << id << " was acknowledged but is missing after the restart";
    if (r->status == 200) {
      EXPECT_EQ(nlohmann::json::parse(r->body)["run_id"], id);
    }
  }
  auto list = http_fetch({.url = url2 + "/api/v1/runs?limit=100"});
  ASSERT_TRUE(list);
  const int stored = nlohmann::json::parse(list->body)["total"];
  EXPECT_GE(stored, static_cast<int>(acknowledged.size()));
  EXPECT_LE(stored, kUploads);
  ::kill(restarted.pid, SIGTERM);
  const int stop_status = restarted.wait();
  EXPECT_TRUE(WIFEXITED(stop_status) && WEXITSTATUS(stop_status) == 0) << "SIGTERM stops the server cleanly";
}

INSTANTIATE_TEST_SUITE_P(Backends, DurabilityTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param == "postgres" ? std::string("Postgres") : std::string("Sqlite"); });

}  // namespace
}  // namespace sm::site
