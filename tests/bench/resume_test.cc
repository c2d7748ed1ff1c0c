// SIGKILL of a run in the middle of a cell, then --resume: every cell present once, measured.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "bench/resume.h"
#include "bench/sessions_phase.h"
#include "result/result_json.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

extern char** environ;

namespace sm {
namespace {

using test::RequestInfo;
using test::ScriptedServer;
using test::ScriptedServerOptions;
using test::StreamScript;

pid_t spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
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

TEST(Resume, SigkillMidCellThenResumeMeasuresEveryCellOnce) {
  std::atomic<pid_t> victim{-1};
  ScriptedServerOptions opts;
  opts.script = [&](const RequestInfo& info) {
    StreamScript s;
    s.token_interval_ns = 2 * kNsPerMs;
    // The first stream of the 64-token row's first cell: kill the run in the middle of that cell.
    if (info.max_tokens > 1 && info.prompt_tokens >= 64 && victim.load() > 0) kill(victim.load(), SIGKILL);
    return s;
  };
  ScriptedServer server(opts);
  test::TempDir dir;
  const std::string out = dir.file("run");
  const std::vector<std::string> matrix = {"--contexts", "0,64", "--concurrency", "1,2", "--prefill-contexts", "32",
                                           "--duration", "0.3", "--max-output", "40", "--quiet", "--no-selftest"};
  std::vector<std::string> first = {SPEEDMATRIX_BINARY, "run", "--url", server.url(), "--out", out};
  first.insert(first.end(), matrix.begin(), matrix.end());
  victim = spawn(first);
  EXPECT_EQ(wait_exit(victim), 128 + SIGKILL);
  victim = -1;

  auto partial = read_result_file(out + "/result.json");
  ASSERT_TRUE(partial.has_value()) << "the killed run left a readable result.json";
  int valid_before = 0;
  for (const auto& c : partial->decode) valid_before += c.status == CellStatus::Valid;
  EXPECT_EQ(valid_before, 2);  // cells 0x1 and 0x2 finished before the kill
  ASSERT_EQ(partial->decode.size(), 4u);
  const double kept_tok_s = *partial->decode[0].total_tok_s;
  ASSERT_TRUE(partial->timing.has_value()) << "saved after every cell";
  const double windows_before_s = partial->timing->windows_s;
  EXPECT_GE(windows_before_s, 2 * 0.3 - 1e-6);

  // Changing the matrix is refused with a clear message.
  pid_t refused = spawn({SPEEDMATRIX_BINARY, "run", "--resume", out, "--duration", "5", "--quiet"});
  EXPECT_EQ(wait_exit(refused), 2);

  pid_t resumed = spawn({SPEEDMATRIX_BINARY, "run", "--resume", out, "--quiet", "--no-selftest"});
  EXPECT_EQ(wait_exit(resumed), 0);
  auto final_result = read_result_file(out + "/result.json");
  ASSERT_TRUE(final_result.has_value());
  EXPECT_EQ(final_result->resumes, 1);
  std::set<std::pair<int64_t, int64_t>> seen;
  for (const auto& c : final_result->decode) {
    EXPECT_TRUE(seen.insert({c.context, c.concurrency}).second) << "cell present twice";
    EXPECT_EQ(c.status, CellStatus::Valid) << c.context << "x" << c.concurrency;
    EXPECT_TRUE(c.total_tok_s.has_value());
  }
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_EQ(*final_result->decode[0].total_tok_s, kept_tok_s);  // finished cells kept as they were
  ASSERT_EQ(final_result->prefill.size(), 1u);
  EXPECT_EQ(final_result->prefill[0].status, CellStatus::Valid);
  EXPECT_FALSE(final_result->finished_at.empty());
  // The timing adds this session's to the killed one's: four windows in all, two before the kill.
  ASSERT_TRUE(final_result->timing.has_value());
  double windows_s = 0;
  for (const auto& c : final_result->decode) windows_s += *c.measured_s;
  EXPECT_NEAR(final_result->timing->windows_s, windows_s, 1e-3);
  EXPECT_GT(final_result->timing->windows_s, windows_before_s);
  EXPECT_GT(final_result->timing->total_s, partial->timing->total_s);
}

// Ctrl-C: the current cell is marked interrupted, every finished cell is saved, exit 130.
TEST(Resume, CtrlCMarksTheCellInterruptedAndKeepsTheRest) {
  std::atomic<pid_t> victim{-1};
  ScriptedServerOptions opts;
  opts.script = [&](const RequestInfo& info) {
    StreamScript s;
    s.token_interval_ns = 2 * kNsPerMs;
    if (info.max_tokens > 1 && info.prompt_tokens >= 64 && victim.load() > 0) kill(victim.load(), SIGINT);
    return s;
  };
  ScriptedServer server(opts);
  test::TempDir dir;
  const std::string out = dir.file("run");
  victim = spawn({SPEEDMATRIX_BINARY, "run", "--url", server.url(), "--out", out, "--contexts", "0,64", "--concurrency",
                  "1", "--prefill-contexts", "none", "--duration", "0.5", "--max-output", "40", "--quiet",
                  "--no-selftest"});
  EXPECT_EQ(wait_exit(victim), 130);
  auto r = read_result_file(out + "/result.json");
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->decode.size(), 2u);
  EXPECT_EQ(r->decode[0].status, CellStatus::Valid);
  EXPECT_EQ(r->decode[1].status, CellStatus::Interrupted);
  EXPECT_FALSE(r->finished_at.empty());
}

TEST(Resume, SettingsCheckNamesTheFlag) {
  RunResult stored;
  stored.settings.duration_s = 30;
  stored.settings.contexts = {0, 16384};
  RunConfig asked;
  asked.matrix.duration_s = 10;
  asked.matrix.contexts = {16384, 0};
  EXPECT_TRUE(check_resume_settings(stored, asked, {"--contexts"}).has_value());  // same set, other order
  auto err = check_resume_settings(stored, asked, {"--duration"});
  ASSERT_FALSE(err.has_value());
  EXPECT_NE(err.error().message.find("--duration"), std::string::npos);
  EXPECT_TRUE(check_resume_settings(stored, asked, {}).has_value());  // nothing given: nothing to differ
}

TEST(Resume, SessionsAreTheRunsOwnOrAddedAndOwedUntilMeasured) {
  RunResult stored;
  SessionsSpec spec;
  spec.shape.sessions = 4;
  spec.shape.turns = 6;
  apply_sessions_settings(stored.settings, spec, 1);
  RunConfig asked;
  asked.sessions = spec;
  EXPECT_TRUE(check_resume_settings(stored, asked, {"--sessions"}).has_value());
  asked.sessions->shape.turns = 8;
  auto err = check_resume_settings(stored, asked, {"--sessions"});
  ASSERT_FALSE(err.has_value());
  EXPECT_NE(err.error().message.find("--sessions 4x8 first=1K,user=256,answer=128 differs from the interrupted run's "
                                     "4x6 first=1K,user=256,answer=128"),
            std::string::npos)
      << err.error().message;
  // Owed until measured; a workload in error is measured again with --retry-failed only.
  EXPECT_EQ(resume_work(stored, false).checks_owed, 1);
  stored.sessions = SessionsResult{};
  EXPECT_TRUE(resume_work(stored, false).nothing_to_do());
  stored.sessions->status = CellStatus::Error;
  EXPECT_EQ(resume_work(stored, false).errors_left, 1);
  EXPECT_EQ(resume_work(stored, true).to_measure, 1);
}

// How the server is reached again: the recorded target, or for files from before it was
// recorded, what they say (a launch command; simulated hardware only the built-in engine writes).
TEST(Resume, TargetOfOlderFilesIsInferred) {
  RunResult r;
  EXPECT_EQ(resume_target(r), "url");
  r.hardware.source = HardwareSource::Simulated;
  EXPECT_EQ(resume_target(r), "embedded");
  EXPECT_TRUE(config_to_resume(r, "d").embedded_sim);
  r.launch_command = "llama-server --port 8080";
  EXPECT_EQ(resume_target(r), "launched");
  EXPECT_FALSE(config_to_resume(r, "d").embedded_sim);
  r.settings.target = "url";
  EXPECT_EQ(resume_target(r), "url");
}

}  // namespace
}  // namespace sm
