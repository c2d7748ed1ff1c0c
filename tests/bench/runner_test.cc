#include "bench/runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "metrics/window_precision.h"
#include "result/plan.h"
#include "result/result_json.h"
#include "site/json_schema.h"
#include "site/site_data.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

using test::ScriptedServer;
using test::ScriptedServerOptions;

RunConfig small_config(const ScriptedServer& server, const std::string& out_dir) {
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {0, 256, 1024};
  c.contexts_given = true;
  c.matrix.concurrency = {1, 2, 4};
  c.matrix.prefill_contexts = {256, 512};
  c.matrix.max_output_tokens = 64;
  c.matrix.duration_s = 0.4;
  c.out_dir = out_dir;
  c.quiet = true;
  c.client_selftest = false;  // the test binary has no streamer subcommand
  c.json_output = true;
  return c;
}

TEST(Runner, RunsTheMatrixAgainstTheScriptedServer) {
  ScriptedServerOptions opts;
  opts.kv_capacity_tokens = 4 * (256 + 64);  // 1024 x 4 does not fit; 256 x 4 just does
  opts.max_model_len = 4096;
  ScriptedServer server(opts);
  test::TempDir dir;
  ASSERT_EQ(run_matrix(small_config(server, dir.file("run"))), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->engine.kind, "vllm");
  EXPECT_EQ(*result->engine.kv_capacity_tokens, 1280);
  ASSERT_EQ(result->prefill.size(), 2u);
  for (const auto& row : result->prefill) {
    EXPECT_EQ(row.status, CellStatus::Valid);
    EXPECT_EQ(*row.prompt_tokens, row.context);  // exact-length prompts
    EXPECT_TRUE(row.prompt_length_ok);
    EXPECT_GT(*row.prompt_tok_s, 0);
  }
  ASSERT_EQ(result->decode.size(), 9u);
  for (const auto& cell : result->decode) {
    const CellStatus expected = decode_cell_status(cell.context, cell.concurrency, 64, {1280, 4096});
    EXPECT_EQ(cell.status, expected) << cell.context << "x" << cell.concurrency;
    if (expected != CellStatus::Valid) {
      EXPECT_FALSE(cell.total_tok_s.has_value());
      continue;
    }
    EXPECT_GT(*cell.total_tok_s, 100.0 * static_cast<double>(cell.concurrency));
    EXPECT_TRUE(cell.prompt_length_ok);
    if (cell.context > 0) {
      EXPECT_EQ(*cell.prompt_tokens_min, cell.context);
      EXPECT_EQ(*cell.prompt_tokens_max, cell.context);
    }
    EXPECT_EQ(*cell.ended_early, 0);
    EXPECT_EQ(cell.token_count_source, "usage_continuous");
  }
  // Every measured stream asked for exactly max output with end-of-sequence ignored.
  for (const auto& req : server.all_requests()) {
    if (req.path != "/v1/completions") continue;
    EXPECT_NE(req.body.find("\"ignore_eos\":true"), std::string::npos);
    EXPECT_NE(req.body.find("\"include_usage\":true"), std::string::npos);
    EXPECT_NE(req.body.find("\"temperature\":0"), std::string::npos);
  }
  EXPECT_TRUE(std::filesystem::exists(dir.file("run/report.html")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("run/report.md")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("run/measurements.csv")));

  // The file the run wrote is valid against docs/result-schema.json (what other tools and the
  // results site rely on).
  auto schema_text = site::site_data_file("result-schema.json");
  ASSERT_TRUE(schema_text.has_value());
  auto schema = site::JsonSchema::parse(*schema_text);
  ASSERT_TRUE(schema.has_value()) << schema.error().message;
  std::ifstream written(dir.file("run/result.json"));
  auto ok = schema->validate(nlohmann::json::parse(written));
  EXPECT_TRUE(ok.has_value()) << ok.error().message;
}

// The first long prompt an engine sees may pay one-time costs (kernels compiled for batched
// shapes, graphs captured): one unmeasured cold request as long as the first prefill row's prompt
// goes before that row, and only before the first.
TEST(Runner, WarmsTheEngineUpWithALongPromptBeforeTheFirstPrefillRow) {
  ScriptedServerOptions opts;
  opts.kv_capacity_tokens = 4 * (256 + 64);
  opts.max_model_len = 4096;
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = small_config(server, dir.file("run"));
  c.matrix.contexts = {256};
  c.matrix.concurrency = {1};
  ASSERT_EQ(run_matrix(c), 0);
  std::vector<std::string> bodies;
  for (const auto& req : server.all_requests())
    if (req.path == "/v1/completions") bodies.push_back(req.body);
  auto first_with = [&](const std::string& text) {
    for (size_t i = 0; i < bodies.size(); ++i)
      if (bodies[i].find(text) != std::string::npos) return static_cast<int64_t>(i);
    return int64_t{-1};
  };
  const int64_t warmup = first_with("speedmatrix warm-up 256:");
  const int64_t row_256 = first_with("speedmatrix context 256:");
  const int64_t row_512 = first_with("speedmatrix context 512:");
  ASSERT_GE(warmup, 0) << "no warm-up request";
  ASSERT_GE(row_256, 0);
  ASSERT_GE(row_512, 0);
  EXPECT_LT(warmup, row_256);  // before the first row's measured request
  EXPECT_NE(bodies[warmup].find("\"max_tokens\":1,"), std::string::npos) << bodies[warmup].substr(0, 200);
  EXPECT_EQ(first_with("speedmatrix warm-up 512:"), -1);  // the engine is warm after that
  int64_t warmups = 0;
  for (const auto& b : bodies) warmups += b.find("speedmatrix warm-up") != std::string::npos;
  EXPECT_EQ(warmups, 1);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  for (const auto& row : result->prefill) EXPECT_EQ(row.status, CellStatus::Valid) << row.context;
  EXPECT_GT(result->timing->warmup_s, 0.0);  // charged to warm-ups, not to the row
}

// A context with decode cells but no prefill row must be processed once, unmeasured, before its
// cells: its prompt extends the shorter context's, so a prefix cache reads only the new part. A
// prefill row's prompt starts with a head of its own (it must be cold).
TEST(Runner, ADecodeOnlyContextExtendsTheShorterContextsPrompt) {
  ScriptedServerOptions opts;
  opts.max_model_len = 4096;
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = small_config(server, dir.file("run"));  // rows 256 and 512; decode 0, 256, 1024
  c.matrix.concurrency = {1};
  ASSERT_EQ(run_matrix(c), 0);
  std::string row_512, context_1024;
  for (const auto& req : server.all_requests()) {
    if (req.path != "/v1/completions") continue;
    const std::string prompt = nlohmann::json::parse(req.body).value("prompt", "");
    EXPECT_EQ(prompt.find("speedmatrix context 1024:"), std::string::npos);
    if (prompt.find("speedmatrix context 512:") == std::string::npos) continue;
    if (row_512.empty() || prompt.size() < row_512.size()) row_512 = prompt;
    if (prompt.size() > context_1024.size()) context_1024 = prompt;
  }
  ASSERT_FALSE(row_512.empty());
  EXPECT_GT(context_1024.size(), row_512.size());
  EXPECT_TRUE(context_1024.starts_with(row_512));
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  for (const auto& cell : result->decode) {
    EXPECT_EQ(cell.status, CellStatus::Valid) << cell.context;
    if (cell.context == 1024) {
      EXPECT_EQ(cell.prompt_tokens_min, 1024);  // still exactly its context
    }
  }
  for (const auto& row : result->prefill) EXPECT_EQ(row.status, CellStatus::Valid) << row.context;
}

TEST(Runner, BurstCellsSendTheirRequestsAndRecordLatencies) {
  ScriptedServer server;
  test::TempDir dir;
  RunConfig c = small_config(server, dir.file("run"));
  c.matrix.contexts = {256};
  c.matrix.concurrency = {2};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 16;
  c.matrix.requests_per_cell = 6;
  c.matrix.warmup_requests = 2;
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->settings.decode_test, "burst");
  EXPECT_EQ(result->settings.requests_per_cell, 6);
  EXPECT_EQ(result->settings.warmup_requests, 2);
  ASSERT_EQ(result->decode.size(), 1u);
  const DecodeCell& cell = result->decode[0];
  ASSERT_EQ(cell.status, CellStatus::Valid) << cell.error;
  EXPECT_EQ(*cell.requests_started, 6);
  EXPECT_EQ(*cell.completed, 6);
  EXPECT_EQ(*cell.output_tokens, 6 * 16);
  EXPECT_TRUE(cell.e2e_ms && cell.e2e_p99_ms && cell.tpot_ms && cell.ttft_p99_ms);
  // Warm-up requests (2) + measured (6) ask for the cell's 16 tokens; the prompt's warm-up and
  // the run's probes ask for one.
  int cell_requests = 0;
  for (const auto& req : server.all_requests())
    cell_requests += req.path == "/v1/completions" && req.body.find("\"max_tokens\":16") != std::string::npos;
  EXPECT_EQ(cell_requests, 2 + 6);
  // The record stays valid against the schema, and the report shows the burst's latencies.
  auto schema = site::JsonSchema::parse(*site::site_data_file("result-schema.json"));
  ASSERT_TRUE(schema.has_value());
  std::ifstream written(dir.file("run/result.json"));
  EXPECT_TRUE(schema->validate(nlohmann::json::parse(written)).has_value());
  std::ifstream md(dir.file("run/report.md"));
  const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(report.find("Burst decode"), std::string::npos);
  EXPECT_NE(report.find("End to end (p50 · p90 · p99)"), std::string::npos);
}

// One cell (context 0 x 2 streams, no restarts) with adaptive windows at 10%, a 4 s floor and
// `cap_s` as --duration.
RunConfig adaptive_config(const ScriptedServer& server, const std::string& out_dir, double cap_s) {
  RunConfig c = small_config(server, out_dir);
  c.matrix.contexts = {0};
  c.matrix.concurrency = {2};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 20000;
  c.matrix.duration_s = cap_s;
  c.matrix.precision = 0.10;
  c.matrix.min_window_s = 4;
  return c;
}

TEST(Runner, AdaptiveWindowsCloseOnceTheProjectionIsPreciseAndSaySo) {
  // `run --precision`: a steady scripted server (2 streams, a token every 5 ms each) settles long
  // before the 60 s cap; the cell reports the full window's projection beside its own window.
  ScriptedServer server;
  test::TempDir dir;
  const RunConfig c = adaptive_config(server, dir.file("run"), 60);
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->settings.decode_test, "adaptive_duration");
  EXPECT_EQ(result->settings.precision, 0.10);
  EXPECT_EQ(result->settings.min_window_s, 4);
  ASSERT_EQ(result->decode.size(), 1u);
  const DecodeCell& cell = result->decode[0];
  ASSERT_EQ(cell.status, CellStatus::Valid) << cell.error;
  ASSERT_TRUE(cell.settled.has_value());
  EXPECT_TRUE(*cell.settled);
  EXPECT_GE(*cell.measured_s, 4.0);
  EXPECT_LT(*cell.measured_s, 60.0);
  ASSERT_TRUE(cell.window_tok_s && cell.total_tok_s && cell.total_tok_s_ci);
  EXPECT_NEAR(*cell.window_tok_s, static_cast<double>(*cell.output_tokens) / *cell.measured_s, 1e-6 * *cell.window_tok_s);
  EXPECT_LE(*cell.total_tok_s_ci, 0.10 * *cell.total_tok_s);
  EXPECT_NEAR(*cell.total_tok_s / *cell.window_tok_s, 1.0, 0.10);  // a steady rate projects itself
  EXPECT_TRUE(cell.warnings.empty());
  auto schema = site::JsonSchema::parse(*site::site_data_file("result-schema.json"));
  ASSERT_TRUE(schema.has_value());
  std::ifstream written(dir.file("run/result.json"));
  EXPECT_TRUE(schema->validate(nlohmann::json::parse(written)).has_value());
}

TEST(Runner, APrecisionAuditRunsTheFullWindowAndSaysWhereItWouldHaveClosed) {
  // `run --precision 10% --precision-audit`: the same steady server; the window runs its whole
  // 6 s, and the cell records the moment (after the 4 s floor) the rule would have closed it and
  // the projection it would have reported, beside the full window's own figure.
  ScriptedServer server;
  test::TempDir dir;
  RunConfig c = adaptive_config(server, dir.file("run"), 6);
  c.matrix.precision_audit = true;
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->settings.decode_test, "fixed_duration");
  EXPECT_EQ(result->settings.precision_audit, true);
  const DecodeCell& cell = result->decode[0];
  ASSERT_EQ(cell.status, CellStatus::Valid) << cell.error;
  EXPECT_FALSE(cell.settled.has_value());  // no window closed early
  EXPECT_FALSE(cell.window_tok_s.has_value());
  EXPECT_NEAR(*cell.measured_s, 6.0, 0.5);
  ASSERT_TRUE(cell.audit_close_s && cell.audit_tok_s && cell.audit_tok_s_ci);
  EXPECT_GE(*cell.audit_close_s, 4.0);
  EXPECT_LT(*cell.audit_close_s, *cell.measured_s);
  EXPECT_LE(*cell.audit_tok_s_ci, 0.10 * *cell.audit_tok_s);
  EXPECT_NEAR(*cell.audit_tok_s / *cell.total_tok_s, 1.0, 0.10);
  // The full window's per-second bins, for replaying other rules (bench/replay_precision): one per
  // whole second every stream is known through (the last may wait on the gap after a cut stream's
  // last chunk), holding the window's tokens but those of its last part-second.
  const auto whole_s = static_cast<size_t>(*cell.measured_s);
  ASSERT_GE(cell.audit_bins_tok_s.size() + 1, whole_s);
  ASSERT_LE(cell.audit_bins_tok_s.size(), whole_s);
  double binned = 0;
  for (double v : cell.audit_bins_tok_s) binned += v;
  EXPECT_LE(binned, static_cast<double>(*cell.output_tokens));
  EXPECT_GT(binned, static_cast<double>(*cell.output_tokens) *
                        (static_cast<double>(cell.audit_bins_tok_s.size()) / *cell.measured_s) * 0.9);
  const PrecisionCheck replayed = check_window_precision(
      std::span(cell.audit_bins_tok_s.data(), static_cast<size_t>(*cell.audit_close_s)), *cell.measured_s, 0.10);
  EXPECT_TRUE(replayed.precise_enough);  // the bins say what the live rule saw
  auto schema = site::JsonSchema::parse(*site::site_data_file("result-schema.json"));
  ASSERT_TRUE(schema.has_value());
  std::ifstream written(dir.file("run/result.json"));
  EXPECT_TRUE(schema->validate(nlohmann::json::parse(written)).has_value());
}

TEST(Runner, FlagsPromptsThatMissTheirLength) {
  ScriptedServerOptions opts;
  opts.script = [](const test::RequestInfo& info) {
    test::StreamScript s;
    if (info.max_tokens > 1) s.prompt_tokens_delta = 40;  // the server "sees" 40 more tokens
    return s;
  };
  ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = small_config(server, dir.file("run"));
  c.matrix.contexts = {1024};
  c.matrix.concurrency = {1};
  c.matrix.prefill_contexts = {};
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value());
  ASSERT_EQ(result->decode.size(), 1u);
  EXPECT_FALSE(result->decode[0].prompt_length_ok);
  EXPECT_EQ(*result->decode[0].prompt_tokens_max, 1064);
}

// The chat route: the template's tokens are measured once and prompts still hit their length.
TEST(Runner, ChatRouteHitsPromptLengthsThroughTheTemplate) {
  ScriptedServer server;
  test::TempDir dir;
  RunConfig c = small_config(server, dir.file("run"));
  c.target.api = ApiKind::Chat;
  c.matrix.contexts = {512};
  c.matrix.concurrency = {2};
  c.matrix.prefill_contexts = {256};
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->settings.api, "chat");
  EXPECT_EQ(*result->prefill[0].prompt_tokens, 256);  // 3 of them are the chat template's
  EXPECT_EQ(*result->decode[0].prompt_tokens_max, 512);
  EXPECT_EQ(result->decode[0].status, CellStatus::Valid);
  bool chat_seen = false;
  for (const auto& req : server.all_requests()) chat_seen |= req.path == "/v1/chat/completions";
  EXPECT_TRUE(chat_seen);
}

TEST(Runner, RefusesAFolderThatHoldsAResult) {
  ScriptedServer server;
  test::TempDir dir;
  RunConfig c = small_config(server, dir.file("run"));
  c.matrix.contexts = {0};
  c.matrix.concurrency = {1};
  c.matrix.prefill_contexts = {};
  ASSERT_EQ(run_matrix(c), 0);
  EXPECT_EQ(run_matrix(c), 1);
}

TEST(Runner, UnreachableServerFailsClearly) {
  test::TempDir dir;
  RunConfig c;
  c.target.base_url = "http://127.0.0.1:1";
  c.matrix.contexts = {0};
  c.matrix.concurrency = {1};
  c.out_dir = dir.file("run");
  c.quiet = true;
  c.client_selftest = false;  // the test binary has no streamer subcommand
  EXPECT_EQ(run_matrix(c), 1);
  EXPECT_FALSE(std::filesystem::exists(dir.file("run/result.json")));
}

}  // namespace
}  // namespace sm
