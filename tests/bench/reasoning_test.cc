// Reasoning streamed apart from the answer (issue 33 point 5; docs/METRICS.md, "Reasoning and
// the first answer token"): each request's reasoning tokens and first answer token, the cell's
// figures from them, and a chat run against a server that thinks before it answers.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "bench/runner.h"
#include "metrics/cell_metrics.h"
#include "report/report.h"
#include "result/result_json.h"
#include "support/result_schema.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

RequestRecord reasoned(int64_t send_ms, int64_t answer_ms, int64_t reasoning, RequestEnd end) {
  RequestRecord r;
  r.send_ns = send_ms * kNsPerMs;
  r.first_token_ns = r.send_ns + 10 * kNsPerMs;
  r.first_answer_ns = answer_ms < 0 ? -1 : answer_ms * kNsPerMs;
  r.reasoning_tokens = reasoning;
  r.end = end;
  return r;
}

// One decode cell over the chat route, no prefill rows.
RunConfig chat_cell(const std::string& url, const std::string& out, int64_t context, int64_t concurrency,
                    int64_t max_output, double duration_s) {
  RunConfig c;
  c.target.base_url = url;
  c.target.api = ApiKind::Chat;
  c.matrix.contexts = {context};
  c.contexts_given = true;
  c.matrix.concurrency = {concurrency};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = max_output;
  c.matrix.duration_s = duration_s;
  c.out_dir = out;
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  return c;
}

TEST(Reasoning, ACellsFiguresComeFromTheRequestsThatReasoned) {
  std::vector<RequestRecord> records = {
      reasoned(0, 100, 20, RequestEnd::Finished),
      reasoned(0, 300, 60, RequestEnd::Cut),       // answered, then cut: its reasoning is whole
      reasoned(0, -1, 500, RequestEnd::Cut),       // cut while thinking: length unknown
      reasoned(0, -1, 800, RequestEnd::Finished),  // ended without an answer: 800 tokens of reasoning
  };
  RequestRecord plain;  // a request that streamed no reasoning is left out
  plain.first_answer_ns = 5 * kNsPerMs;
  records.push_back(plain);
  DecodeCell cell;
  summarize_reasoning(records, cell);
  EXPECT_EQ(cell.reasoning_requests, 4);
  EXPECT_EQ(cell.answered_requests, 2);
  ASSERT_TRUE(cell.first_answer_ms && cell.reasoning_tokens);
  EXPECT_DOUBLE_EQ(cell.first_answer_ms->p50, 200.0);
  EXPECT_DOUBLE_EQ(cell.reasoning_tokens->p50, 60.0);
  EXPECT_NEAR(cell.reasoning_tokens->p99, 785.2, 1e-9);  // between 60 and 800, as percentile() interpolates
  DecodeCell none;
  summarize_reasoning(std::vector<RequestRecord>{plain}, none);
  EXPECT_FALSE(none.reasoning_requests.has_value());
  EXPECT_FALSE(none.first_answer_ms.has_value());
}

TEST(Reasoning, AChatRunSeparatesTheThinkingFromTheAnswer) {
  test::ScriptedServerOptions opts;
  opts.script = [](const test::RequestInfo&) {
    test::StreamScript s;
    s.reasoning_tokens = 6;
    s.token_interval_ns = 2 * kNsPerMs;
    return s;
  };
  test::ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = chat_cell(server.url(), dir.file("run"), 256, 2, 24, 0.3);
  c.save_requests = true;
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  const DecodeCell& cell = result->decode.at(0);
  ASSERT_EQ(cell.status, CellStatus::Valid) << cell.error;
  ASSERT_TRUE(cell.reasoning_requests.has_value());
  EXPECT_GE(*cell.answered_requests, 1);
  EXPECT_LE(*cell.answered_requests, *cell.reasoning_requests);
  ASSERT_TRUE(cell.reasoning_tokens.has_value());
  EXPECT_DOUBLE_EQ(cell.reasoning_tokens->p50, 6.0);  // exact: the usage count rides on every chunk
  ASSERT_TRUE(cell.first_answer_ms && cell.ttft_ms);
  EXPECT_GT(cell.first_answer_ms->p50, *cell.ttft_ms);  // the answer's first token comes after the thinking's
  // Every token still counts toward tok/s: reasoning is output.
  EXPECT_GT(*cell.total_tok_s, 0.0);
  std::ifstream lines(dir.file("run/requests.jsonl"));
  int with_reasoning = 0;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["purpose"] != "decode" || j["status"] != "finished") continue;
    EXPECT_EQ(j["reasoning_tokens"], 6) << line;
    EXPECT_GT(j["first_answer_ms"].get<double>(), j["ttft_ms"].get<double>()) << line;
    ++with_reasoning;
  }
  EXPECT_GT(with_reasoning, 0);
  EXPECT_TRUE(test::follows_result_schema(dir.file("run/result.json")));
  const std::string md = render_report(*result, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("## Reasoning"), std::string::npos);
  EXPECT_NE(md.find("First answer token"), std::string::npos);
  EXPECT_NE(render_report(*result, ReportFormat::Html, {}).find("id=\"reasoning\""), std::string::npos);
  // measurements.csv ends each decode row with the reasoning's median length.
  const std::string csv = render_report(*result, ReportFormat::Csv, {});
  EXPECT_NE(csv.find(",first_answer_ms,first_answer_p90_ms,reasoning_tokens_p50\n"), std::string::npos);
  EXPECT_NE(csv.find(",6\n"), std::string::npos) << csv;
}

TEST(Reasoning, AServerThatDoesNotReasonAddsNothing) {
  test::ScriptedServer server;
  test::TempDir dir;
  RunConfig c = chat_cell(server.url(), dir.file("run"), 0, 1, 16, 0.2);
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value());
  EXPECT_FALSE(result->decode.at(0).reasoning_requests.has_value());
  EXPECT_EQ(render_report(*result, ReportFormat::Markdown, {}).find("## Reasoning"), std::string::npos);
}

}  // namespace
}  // namespace sm
