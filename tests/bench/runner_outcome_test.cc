// The runner against the scripted server: exit codes, --retry-failed, a finished run resumed,
// defaults fitted to the server, profiles, --repeat, and --dry-run --url asking with GETs only.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <set>
#include <sys/wait.h>

#include "bench/profile_check.h"
#include "bench/resume.h"
#include "bench/run_config.h"
#include "bench/runner.h"
#include "result/result_json.h"
#include "support/run_binary.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

using test::RequestInfo;
using test::ScriptedServer;
using test::ScriptedServerOptions;
using test::StreamScript;

RunConfig base_config(const ScriptedServer& server, const std::string& out_dir) {
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {0, 256};
  c.contexts_given = true;
  c.matrix.concurrency = {1, 2};
  c.matrix.prefill_contexts = {256};
  c.matrix.max_output_tokens = 64;
  c.matrix.duration_s = 0.3;
  c.out_dir = out_dir;
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  c.telemetry = false;
  return c;
}

using Outcome = test::BinaryOutcome;
using test::run_binary;

// A server that fails the 256-token cells (as one that died mid-run would): exit 3, not 0. Back
// on its feet, --resume --retry-failed measures those cells again and the run ends 0; a second
// --resume says the run is finished.
TEST(RunnerOutcome, ErrorCellsExitThreeAndRetryFailedMeasuresThemAgain) {
  std::atomic<bool> failing{true};
  ScriptedServerOptions opts;
  opts.script = [&](const RequestInfo& info) {
    StreamScript s;
    s.token_interval_ns = 2 * kNsPerMs;
    if (failing && info.prompt_tokens >= 256 && info.max_tokens > 1) s.http_status = 503;
    return s;
  };
  ScriptedServer server(opts);
  test::TempDir dir;
  const std::string out = dir.file("run");
  EXPECT_EQ(run_matrix(base_config(server, out)), kExitCellErrors);
  auto first = read_result_file(out + "/result.json");
  ASSERT_TRUE(first.has_value());
  int errors = 0;
  for (const auto& c : first->decode) errors += c.status == CellStatus::Error;
  EXPECT_EQ(errors, 2);

  // Without --retry-failed there is nothing to resume: said, with the exit code of the stored run.
  Outcome finished = run_binary("run --resume " + out + " --quiet");
  EXPECT_EQ(finished.exit_code, kExitCellErrors) << finished.output;
  EXPECT_NE(finished.output.find("is finished: nothing left to measure (3 valid, 2 in error; --retry-failed"),
            std::string::npos)
      << finished.output;

  failing = false;
  auto stored = read_result_file(out + "/result.json");
  RunConfig retry = config_to_resume(*stored, out);
  retry.target.base_url = server.url();
  retry.retry_failed = true;
  retry.quiet = true;
  retry.client_selftest = false;
  retry.json_output = true;
  retry.telemetry = false;
  EXPECT_EQ(run_matrix(retry), kExitOk);
  auto second = read_result_file(out + "/result.json");
  ASSERT_TRUE(second.has_value());
  for (const auto& c : second->decode) EXPECT_EQ(c.status, CellStatus::Valid) << c.context << "x" << c.concurrency;
  EXPECT_EQ(second->decode[0].total_tok_s, first->decode[0].total_tok_s);  // valid cells kept as they were

  finished = run_binary("run --resume " + out + " --quiet");
  EXPECT_EQ(finished.exit_code, kExitOk) << finished.output;
  EXPECT_NE(finished.output.find("is finished: nothing left to measure (5 valid)"), std::string::npos)
      << finished.output;
}

// A profile on a server whose model is shorter than every cell: each cell is "beyond the model",
// the run keeps its profile, and the exit code says nothing was measured.
TEST(RunnerOutcome, AProfileBeyondTheModelKeepsItsCellsAndExitsFour) {
  ScriptedServerOptions opts;
  opts.max_model_len = 768;
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = base_config(server, dir.file("run"));
  ASSERT_EQ(apply_profile(*find_profile("quick"), {}, c), "");
  EXPECT_EQ(run_matrix(c), kExitNothingMeasured);
  auto r = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->settings.profile, "quick/1");
  ASSERT_EQ(r->decode.size(), 12u);
  for (const auto& cell : r->decode) EXPECT_EQ(cell.status, CellStatus::BeyondModel);
  for (const auto& row : r->prefill) EXPECT_EQ(row.status, CellStatus::BeyondModel);
  for (const auto& req : server.records()) EXPECT_LE(req.info.max_tokens, 1) << "only calibration requests";
}

// The first case: a 4,096-token server, contexts 0 and 1K, no --max-output. Fitted, the
// cells run; the plan says what it chose.
TEST(RunnerOutcome, DefaultsFitTheServersContextAndSlots) {
  ScriptedServerOptions opts;
  opts.max_model_len = 4096;
  opts.flavour = test::ScriptedFlavour::Sglang;
  opts.max_running_requests = 2;
  opts.script = [](const RequestInfo&) {
    StreamScript s;
    s.token_interval_ns = 2 * kNsPerMs;
    return s;
  };
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = base_config(server, dir.file("run"));
  c.matrix.contexts = {0, 1024};
  c.matrix.max_output_tokens = 8192;
  c.fit_max_output = true;
  c.matrix.concurrency = default_concurrency();
  c.fit_concurrency = true;
  c.matrix.prefill_contexts = {1024, 8192};
  EXPECT_EQ(run_matrix(c), kExitOk);
  auto r = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->settings.max_output_tokens, 1024);
  EXPECT_EQ(r->settings.concurrency, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(r->settings.prefill_contexts, (std::vector<int64_t>{1024}));
  EXPECT_EQ(r->settings.profile, "");
  ASSERT_EQ(r->settings.plan_notes.size(), 3u);
  EXPECT_NE(r->settings.plan_notes[0].find("max output 1,024 tokens"), std::string::npos);
  EXPECT_NE(r->settings.plan_notes[1].find("prefill rows 8K dropped"), std::string::npos);
  EXPECT_NE(r->settings.plan_notes[2].find("concurrency stops at 2"), std::string::npos);
  ASSERT_EQ(r->decode.size(), 4u);
  for (const auto& cell : r->decode) EXPECT_EQ(cell.status, CellStatus::Valid);
}

// --repeat 2: two passes, each prefill row cold with a prompt of its own, every pass's figure kept.
TEST(RunnerOutcome, RepeatMeasuresEveryRowAndCellOncePerPass) {
  ScriptedServerOptions opts;
  opts.script = [](const RequestInfo&) {
    StreamScript s;
    s.token_interval_ns = 2 * kNsPerMs;
    return s;
  };
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = base_config(server, dir.file("run"));
  c.repeat = 2;
  EXPECT_EQ(run_matrix(c), kExitOk);
  auto r = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->settings.repeat, 2);
  ASSERT_EQ(r->prefill.size(), 1u);
  EXPECT_EQ(r->prefill[0].repeat_prompt_tok_s.size(), 2u);
  ASSERT_EQ(r->decode.size(), 4u);
  for (const auto& cell : r->decode) {
    EXPECT_EQ(cell.status, CellStatus::Valid);
    ASSERT_EQ(cell.repeat_tok_s.size(), 2u);
    EXPECT_TRUE(*cell.total_tok_s == cell.repeat_tok_s[0] || *cell.total_tok_s == cell.repeat_tok_s[1]);
  }
  // Two cold 256-token prefill requests with different prompts (one per pass).
  std::set<std::string> prefill_bodies;
  for (const auto& req : server.records())
    if (req.info.max_tokens == 1 && req.info.prompt_tokens == 256) prefill_bodies.insert(req.info.body);
  EXPECT_GE(prefill_bodies.size(), 2u);
  // A finished repeated run resumed owes nothing.
  EXPECT_TRUE(resume_work(*r, false).nothing_to_do());
}

// --dry-run --url plans against the server's limits, asking it with GET requests only.
TEST(RunnerOutcome, DryRunWithAUrlProbesTheServerAndPlansAgainstIt) {
  ScriptedServerOptions opts;
  opts.max_model_len = 4096;
  ScriptedServer server(opts);
  Outcome o = run_binary("run --dry-run --url " + server.url() + " --contexts 0,1K --concurrency 1,2");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("model length 4,096 tokens"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("max output 1,024 tokens, fitted to the server"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("too long"), std::string::npos) << o.output;
  for (const auto& req : server.all_requests()) {
    EXPECT_NE(req.path, "/v1/completions");
    EXPECT_NE(req.path, "/tokenize");
  }
  o = run_binary("run --dry-run --url " + server.url() + " --profile standard --format json");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("\"profile\": \"standard/1\""), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("beyond_model"), std::string::npos) << o.output;
  o = run_binary("run --dry-run --profile standard --duration 10");
  EXPECT_NE(o.output.find("--duration changes a setting the standard profile fixes"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("Profile: none"), std::string::npos) << o.output;
  o = run_binary("run --dry-run --profile huge");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("no profile 'huge' (this build knows: standard, quick)"), std::string::npos) << o.output;
  o = run_binary("run --dry-run --retry-failed");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("--retry-failed needs --resume"), std::string::npos) << o.output;
}

}  // namespace
}  // namespace sm
