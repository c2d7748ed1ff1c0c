// run --mixed-prefill: a long prompt alone, then one as long landing among decoding streams (the
// closed loop's intruder); the row's figures from the records; planning, owed rows and the report.
#include "bench/mixed_prefill_phase.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "bench/closed_loop.h"
#include "bench/runner.h"
#include "metrics/mixed_prefill.h"
#include "report/report.h"
#include "result/result_json.h"
#include "support/result_schema.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

RequestRecord stream(int32_t slot, std::vector<int64_t> token_ms) {
  RequestRecord r;
  r.slot = slot;
  r.send_ns = 0;
  for (int64_t ms : token_ms) r.chunks.push_back({ms * kNsPerMs, 1});
  r.tokens = static_cast<int64_t>(token_ms.size());
  r.first_token_ns = r.chunks.empty() ? -1 : r.chunks.front().t_ns;
  r.end = RequestEnd::Cut;
  return r;
}

// Two streams at one token per 100 ms each (20 tok/s together), paused from 2.0 s to 2.5 s by a
// prompt sent at 2.0 s whose first token comes at 2.5 s; window 0–4 s.
std::vector<RequestRecord> stalled_streams() {
  std::vector<int64_t> a, b;
  for (int64_t t = 100; t < 4000; t += 100) {
    if (t > 2000 && t < 2500) continue;  // the pause
    a.push_back(t);
    b.push_back(t + 50);
  }
  RequestRecord intruder = stream(2, {2500});
  intruder.send_ns = 2000 * kNsPerMs;
  intruder.end = RequestEnd::Finished;
  return {stream(0, a), stream(1, b), intruder};
}

TEST(MixedPrefill, FiguresComeFromTheStreamsAroundTheLongPromptsPrefill) {
  const auto records = stalled_streams();
  MixedPrefillRow row;
  compute_mixed_prefill_metrics(records, {0, 4000 * kNsPerMs}, 2, row);
  ASSERT_EQ(row.status, CellStatus::Valid) << row.error;
  EXPECT_DOUBLE_EQ(row.sent_at_s, 2.0);
  EXPECT_DOUBLE_EQ(*row.first_token_at_s, 2.5);
  EXPECT_DOUBLE_EQ(*row.ttft_loaded_ms, 500.0);
  EXPECT_DOUBLE_EQ(*row.background_before_tok_s, 19.0);  // [0, 2 s): 19 + 19 tokens
  EXPECT_DOUBLE_EQ(*row.background_during_tok_s, 4.0);   // [2.0, 2.5 s): a's 2000 ms and b's 2050 ms
  EXPECT_DOUBLE_EQ(*row.background_after_tok_s, 20.0);   // [2.5, 4 s): 15 + 15 tokens
  EXPECT_DOUBLE_EQ(*row.longest_gap_ms, 500.0);          // 2000 -> 2500 and 2050 -> 2550
  EXPECT_EQ(row.timeline_tok_s, (std::vector<double>{18, 20, 12, 20}));
  // The long prompt's tokens are not the streams'.
  EXPECT_EQ(background_tokens_between(records, 2, 2500 * kNsPerMs, 2501 * kNsPerMs), 1);  // a's only
}

TEST(MixedPrefill, ALongPromptWithoutATokenIsAnError) {
  auto records = stalled_streams();
  records[2].first_token_ns = -1;
  records[2].chunks.clear();
  records[2].end = RequestEnd::Failed;
  records[2].error = "HTTP 500: out of memory";
  MixedPrefillRow row;
  compute_mixed_prefill_metrics(records, {0, 4000 * kNsPerMs}, 2, row);
  EXPECT_EQ(row.status, CellStatus::Error);
  EXPECT_EQ(row.error, "the long prompt failed: HTTP 500: out of memory");
  EXPECT_DOUBLE_EQ(*row.background_before_tok_s, 19.0);  // what was measured stays
  records.pop_back();
  MixedPrefillRow unsent;
  compute_mixed_prefill_metrics(records, {0, 4000 * kNsPerMs}, 2, unsent);
  EXPECT_EQ(unsent.error, "the long prompt was not sent");
}

TEST(MixedPrefill, PlanningStreamsAndStatus) {
  EXPECT_EQ(default_mixed_prefill_streams(std::nullopt), 4);
  EXPECT_EQ(default_mixed_prefill_streams(64), 4);
  EXPECT_EQ(default_mixed_prefill_streams(4), 3);  // a slot left for the long prompt
  EXPECT_EQ(default_mixed_prefill_streams(1), 1);
  const CapacityLimits limits{10000, 8192};
  EXPECT_EQ(mixed_prefill_status(4096, 4, 256, limits), CellStatus::Valid);
  EXPECT_EQ(mixed_prefill_status(8192, 4, 256, limits), CellStatus::BeyondModel);
  EXPECT_EQ(mixed_prefill_status(8000, 8, 256, limits), CellStatus::OverCapacity);  // 8 x 320 + 8001 > 10000
  RunResult r;
  MixedPrefillSpec spec{{32768, 8192, 8192}, 0, 5};
  apply_mixed_prefill_settings(r.settings, spec, 2);
  EXPECT_EQ(r.settings.mixed_prefill_contexts, (std::vector<int64_t>{8192, 32768}));
  EXPECT_EQ(r.settings.mixed_prefill_streams, 1);
  MixedPrefillRow done;
  done.context = 8192;
  r.mixed_prefill.push_back(done);
  EXPECT_EQ(mixed_prefill_contexts_owed(r), (std::vector<int64_t>{32768}));
}

// The loop sends the long prompt on a slot of its own once the window is open, never replaces
// it, and keeps the window open until a tail after its first token.
TEST(MixedPrefill, TheLoopSendsTheLongPromptIntoAnOpenWindow) {
  test::ScriptedServerOptions opts;
  opts.script = [](const test::RequestInfo& req) {
    test::StreamScript s;
    if (req.prompt_tokens > 500) s.ttft_ns = 150 * kNsPerMs;  // the long prompt's prefill
    return s;
  };
  test::ScriptedServer server(opts);
  ClosedLoop loop(SteadyClock::instance(), StreamClientOptions{});
  LoopSpec spec;
  const std::string url = server.url() + "/v1/completions";
  spec.request = {url, R"({"model":"scripted-model","prompt":"short","max_tokens":20,"stream":true})", {}};
  spec.concurrency = 2;
  spec.max_tokens = 20;
  spec.duration_ns = 1;
  std::string long_prompt;
  for (int i = 0; i < 600; ++i) long_prompt += " word";
  spec.intruder = HttpRequest{url,
                              R"({"model":"scripted-model","prompt":")" + long_prompt +
                                  R"(","max_tokens":1,"stream":true})",
                              {}};
  spec.intruder_after_ns = 200 * kNsPerMs;
  spec.intruder_tail_ns = 200 * kNsPerMs;
  const LoopOutcome out = loop.run(spec);
  ASSERT_TRUE(out.window_opened);
  ASSERT_FALSE(out.error);
  int intruders = 0;
  const RequestRecord* intruder = nullptr;
  for (const auto& r : out.records)
    if (r.slot == 2) {
      ++intruders;
      intruder = &r;
    }
  ASSERT_EQ(intruders, 1);
  EXPECT_GE(intruder->send_ns - out.window.begin_ns, 200 * kNsPerMs);
  ASSERT_GE(intruder->first_token_ns, 0);
  EXPECT_GE(intruder->first_token_ns - intruder->send_ns, 150 * kNsPerMs);
  EXPECT_EQ(out.window.end_ns - intruder->first_token_ns, 200 * kNsPerMs);
  // The streams were replaced as they finished (20 tokens at 5 ms: about 0.1 s each).
  EXPECT_GT(out.records.size(), 4u);
}

TEST(MixedPrefill, ARunMeasuresEachLengthAndReportsIt) {
  test::ScriptedServerOptions opts;
  opts.max_model_len = 4096;
  opts.script = [](const test::RequestInfo& req) {
    test::StreamScript s;
    if (req.prompt_tokens >= 1000) s.ttft_ns = 120 * kNsPerMs;
    return s;
  };
  test::ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {256};
  c.contexts_given = true;
  c.matrix.concurrency = {1};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 32;
  c.matrix.duration_s = 0.3;
  c.out_dir = dir.file("run");
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  c.save_requests = true;
  c.mixed_prefill = {{1024, 8192}, 2, 0.3};
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->settings.mixed_prefill_contexts, (std::vector<int64_t>{1024, 8192}));
  EXPECT_EQ(result->settings.mixed_prefill_streams, 2);
  ASSERT_EQ(result->mixed_prefill.size(), 2u);
  const MixedPrefillRow& row = result->mixed_prefill[0];
  ASSERT_EQ(row.status, CellStatus::Valid) << row.error;
  EXPECT_EQ(row.context, 1024);
  EXPECT_EQ(row.background_streams, 2);
  EXPECT_GE(*row.ttft_alone_ms, 120.0);
  EXPECT_GE(*row.ttft_loaded_ms, 120.0);
  EXPECT_GE(row.sent_at_s, 0.3);
  EXPECT_GT(*row.background_before_tok_s, 0.0);
  EXPECT_GT(*row.background_after_tok_s, 0.0);
  EXPECT_FALSE(row.timeline_tok_s.empty());
  EXPECT_EQ(result->mixed_prefill[1].status, CellStatus::BeyondModel);  // 8K on a 4K model
  // Both long prompts reached the server at their exact length.
  int long_prompts = 0;
  for (const auto& req : server.all_requests())
    if (req.path == "/v1/completions" && req.prompt_tokens == 1024) ++long_prompts;
  EXPECT_EQ(long_prompts, 2);
  // requests.jsonl tags them.
  std::ifstream lines(dir.file("run/requests.jsonl"));
  int alone = 0, among = 0;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    alone += j["purpose"] == "mixed alone";
    among += j["purpose"] == "mixed prefill" && j["slot"] == 2;
  }
  EXPECT_EQ(alone, 1);
  EXPECT_EQ(among, 1);
  // The file follows the schema, and the reports have the section.
  EXPECT_TRUE(test::follows_result_schema(dir.file("run/result.json")));
  const std::string md = render_report(*result, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("## Mixed prefill"), std::string::npos);
  EXPECT_NE(md.find("TTFT among streams"), std::string::npos);
  const std::string html = render_report(*result, ReportFormat::Html, {});
  EXPECT_NE(html.find("id=\"mixed-prefill-chart-1024\""), std::string::npos);
  EXPECT_NE(html.find("long prompt sent"), std::string::npos);
}

}  // namespace
}  // namespace sm
