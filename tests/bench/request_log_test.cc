// Per-request records (run --save-requests): one JSON line per request, with what it was for, its
// times from the send and its counts; appended and flushed a batch at a time; a full disk is said
// once and stops the records, not the run.
#include "bench/request_log.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "bench/runner.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

std::vector<nlohmann::json> read_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

RequestRecord finished_record() {
  RequestRecord r;
  r.id = 7;
  r.slot = 2;
  r.max_tokens = 4;
  r.send_ns = 3'500'000'000;  // 1.5 s after the origin
  r.first_token_ns = r.send_ns + 120'000'000;
  r.chunks = {{r.first_token_ns, 1}, {r.send_ns + 150'000'000, 2}, {r.send_ns + 180'250'000, 1}};
  r.tokens = 4;
  r.end_ns = r.send_ns + 181'000'000;
  r.usage_prompt_tokens = 1024;
  r.cached_prompt_tokens = 1000;
  r.source = TokenSource::UsageContinuous;
  r.finish = FinishReason::Length;
  r.end = RequestEnd::Finished;
  return r;
}

TEST(RequestLog, ALineHoldsTheRequestsTimesFromItsSendAndItsCounts) {
  const RequestTimeOrigin origin{2'000'000'000, 1'765'000'000'000};
  const nlohmann::json j = request_line({"decode", 1024, 8}, finished_record(), origin);
  EXPECT_EQ(j["purpose"], "decode");
  EXPECT_EQ(j["context"], 1024);
  EXPECT_EQ(j["concurrency"], 8);
  EXPECT_EQ(j["request"], 7);
  EXPECT_EQ(j["slot"], 2);
  EXPECT_DOUBLE_EQ(j["send_s"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["send_unix_ms"].get<double>(), 1'765'000'001'500.0);
  EXPECT_DOUBLE_EQ(j["ttft_ms"].get<double>(), 120.0);
  EXPECT_DOUBLE_EQ(j["last_token_ms"].get<double>(), 180.25);
  EXPECT_DOUBLE_EQ(j["end_ms"].get<double>(), 181.0);
  EXPECT_EQ(j["output_tokens"], 4);
  EXPECT_EQ(j["max_tokens"], 4);
  EXPECT_EQ(j["chunks"], 3);
  EXPECT_EQ(j["prompt_tokens"], 1024);
  EXPECT_EQ(j["cached_prompt_tokens"], 1000);
  EXPECT_EQ(j["token_count_source"], "usage_continuous");
  EXPECT_EQ(j["status"], "finished");
  EXPECT_EQ(j["finish_reason"], "length");
  EXPECT_FALSE(j.contains("error"));
}

TEST(RequestLog, ARequestThatNeverGotATokenHasNullTimesAndItsError) {
  RequestRecord r;
  r.send_ns = 10;
  r.end_ns = 20'000;
  r.end = RequestEnd::Failed;
  r.error = "HTTP 503: overloaded";
  const nlohmann::json j = request_line({"prefill", 512, 1}, r, {0, 0});
  EXPECT_TRUE(j["ttft_ms"].is_null());
  EXPECT_TRUE(j["last_token_ms"].is_null());
  EXPECT_DOUBLE_EQ(j["end_ms"].get<double>(), 0.019);
  EXPECT_TRUE(j["prompt_tokens"].is_null());
  EXPECT_TRUE(j["cached_prompt_tokens"].is_null());
  EXPECT_TRUE(j["finish_reason"].is_null());
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["error"], "HTTP 503: overloaded");
}

TEST(RequestLog, AppendsAndRedactsErrors) {
  test::TempDir dir;
  const std::string path = dir.file("requests.jsonl");
  RedactOptions redact;
  redact.secrets = {"sk-verysecretkey123"};
  RequestRecord failed;
  failed.end = RequestEnd::Failed;
  failed.error = "HTTP 401: bad key sk-verysecretkey123";
  {
    auto log = RequestLog::open(path, {}, redact);
    ASSERT_TRUE(log.has_value()) << log.error().message;
    const std::vector<RequestRecord> batch = {finished_record(), failed};
    ASSERT_TRUE((*log)->append({"decode", 0, 2}, batch).has_value());
    EXPECT_EQ((*log)->lines_written(), 2);
    // Flushed: the lines are there before the log is closed (an interrupted run keeps them).
    EXPECT_EQ(read_lines(path).size(), 2u);
  }
  {
    auto log = RequestLog::open(path, {}, redact);  // a resumed run appends
    ASSERT_TRUE(log.has_value());
    const std::vector<RequestRecord> batch = {finished_record()};
    ASSERT_TRUE((*log)->append({"prefill", 256, 1}, batch).has_value());
  }
  const auto lines = read_lines(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1]["error"].get<std::string>().find("sk-verysecretkey123"), std::string::npos);
  EXPECT_NE(lines[1]["error"].get<std::string>().find("<redacted>"), std::string::npos);
  EXPECT_EQ(lines[2]["purpose"], "prefill");
}

TEST(RequestLog, AFullDiskIsSaidOnceAndStopsTheRecords) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  auto log = RequestLog::open("/dev/full", {}, {});
  ASSERT_TRUE(log.has_value());
  const std::vector<RequestRecord> batch = {finished_record()};
  auto first = (*log)->append({"decode", 0, 1}, batch);
  ASSERT_FALSE(first.has_value());
  EXPECT_NE(first.error().message.find("per-request records stop here"), std::string::npos);
  EXPECT_TRUE((*log)->append({"decode", 0, 1}, batch).has_value());  // said once
  EXPECT_EQ((*log)->lines_written(), 0);
}

TEST(RequestLog, AFolderThatCannotBeWrittenIsAnErrorAtOpen) {
  test::TempDir dir;
  auto log = RequestLog::open(dir.file("no-such-folder/requests.jsonl"), {}, {});
  ASSERT_FALSE(log.has_value());
  EXPECT_NE(log.error().message.find("no-such-folder"), std::string::npos);
}

RunConfig small_run(const test::ScriptedServer& server, const std::string& out_dir) {
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {256, 1024};
  c.contexts_given = true;
  c.matrix.concurrency = {1, 2};
  c.matrix.prefill_contexts = {512};
  c.matrix.max_output_tokens = 32;
  c.matrix.duration_s = 0.3;
  c.out_dir = out_dir;
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  return c;
}

TEST(RequestLog, ARunWithSaveRequestsRecordsEveryRequestItSent) {
  test::ScriptedServerOptions opts;
  opts.kv_capacity_tokens = 100000;
  opts.max_model_len = 4096;
  test::ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = small_run(server, dir.file("run"));
  c.save_requests = true;
  ASSERT_EQ(run_matrix(c), 0);
  const auto lines = read_lines(dir.file("run/requests.jsonl"));
  // Every completion request the server saw has its line.
  int64_t sent = 0;
  for (const auto& req : server.all_requests()) sent += req.path == "/v1/completions";
  EXPECT_EQ(static_cast<int64_t>(lines.size()), sent);
  std::map<std::string, int> by_purpose;
  std::map<std::pair<int64_t, int64_t>, int> decode_by_cell;
  double last_send_s = -1;
  for (const auto& j : lines) {
    ++by_purpose[j["purpose"].get<std::string>()];
    EXPECT_GE(j["send_s"].get<double>(), 0.0);
    if (j["purpose"] == "decode") {
      ++decode_by_cell[{j["context"].get<int64_t>(), j["concurrency"].get<int64_t>()}];
      EXPECT_EQ(j["max_tokens"], 32);
      EXPECT_GT(j["ttft_ms"].get<double>(), 0.0);
      EXPECT_NE(j["status"], "failed");
      if (j["status"] == "finished") {
        EXPECT_EQ(j["output_tokens"], 32);
        EXPECT_EQ(j["finish_reason"], "length");
        EXPECT_GE(j["end_ms"].get<double>(), j["last_token_ms"].get<double>());
        EXPECT_GE(j["last_token_ms"].get<double>(), j["ttft_ms"].get<double>());
      }
    }
    if (j["purpose"] == "prefill") {
      EXPECT_EQ(j["context"], 512);
      EXPECT_EQ(j["prompt_tokens"], 512);  // the row's exact-length prompt, as the server counted it
    }
    EXPECT_GE(j["send_s"].get<double>(), last_send_s - 1.0);  // batches in the order they ran
    last_send_s = std::max(last_send_s, j["send_s"].get<double>());
  }
  EXPECT_GE(by_purpose["calibration"], 1);
  EXPECT_GE(by_purpose["warm-up"], 1);
  EXPECT_EQ(by_purpose["prefill"], 1);
  // Each of the four cells ran at least its concurrency's streams.
  ASSERT_EQ(decode_by_cell.size(), 4u);
  for (const auto& [cell, n] : decode_by_cell) EXPECT_GE(n, cell.second) << cell.first << "x" << cell.second;
}

TEST(RequestLog, ARunWithoutTheFlagWritesNoRecords) {
  test::ScriptedServerOptions opts;
  opts.kv_capacity_tokens = 100000;
  opts.max_model_len = 4096;
  test::ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = small_run(server, dir.file("run"));
  c.matrix.contexts = {256};
  c.matrix.concurrency = {1};
  ASSERT_EQ(run_matrix(c), 0);
  EXPECT_TRUE(std::filesystem::exists(dir.file("run/result.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("run/requests.jsonl")));
}

}  // namespace
}  // namespace sm
