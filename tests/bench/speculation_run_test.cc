// Speculative decoding through a run (issue 33 point 2): a scripted vLLM's draft and acceptance
// counters and a scripted SGLang's accept-length gauge become each decode cell's figures, and the
// report's section; on random-word prompts the report warns they are a floor.
#include <gtest/gtest.h>

#include <atomic>
#include <fmt/format.h>

#include "bench/runner.h"
#include "report/report.h"
#include "result/result_json.h"
#include "sim/linear_cost_model.h"
#include "sim/sim_server.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

RunConfig one_cell(const std::string& url, const std::string& out_dir) {
  RunConfig c;
  c.target.base_url = url;
  c.matrix.contexts = {0};
  c.contexts_given = true;
  c.matrix.concurrency = {2};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 4096;
  c.matrix.duration_s = 1.5;
  c.out_dir = out_dir;
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  c.telemetry_interval_s = 0.1;
  return c;
}

TEST(SpeculationRun, VllmCountersGiveEachCellItsAcceptance) {
  // Every /metrics poll, the engine has verified 100 more drafts of 3 tokens, 150 accepted.
  std::atomic<int64_t> polls{0};
  test::ScriptedServerOptions opts;
  opts.extra_metrics = [&polls] {
    const int64_t n = ++polls;
    return fmt::format(
        "# TYPE vllm:spec_decode_num_drafts_total counter\n"
        "vllm:spec_decode_num_drafts_total{{engine=\"0\",model_name=\"scripted-model\"}} {}\n"
        "# TYPE vllm:spec_decode_num_draft_tokens_total counter\n"
        "vllm:spec_decode_num_draft_tokens_total{{engine=\"0\",model_name=\"scripted-model\"}} {}\n"
        "# TYPE vllm:spec_decode_num_accepted_tokens_total counter\n"
        "vllm:spec_decode_num_accepted_tokens_total{{engine=\"0\",model_name=\"scripted-model\"}} {}\n",
        100 * n, 300 * n, 150 * n);
  };
  test::ScriptedServer server(opts);
  test::TempDir dir;
  ASSERT_EQ(run_matrix(one_cell(server.url(), dir.file("run"))), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  const CellTelemetry& t = result->decode.at(0).telemetry;
  ASSERT_TRUE(t.spec_draft_tokens && t.spec_accepted_tokens && t.spec_drafts) << "no speculation counted";
  EXPECT_GT(*t.spec_draft_tokens, 0);
  // The window's edges fall between polls, where the counters are interpolated: the ratios hold to
  // a token or two.
  EXPECT_NEAR(static_cast<double>(*t.spec_accepted_tokens) / static_cast<double>(*t.spec_draft_tokens), 0.5, 0.005);
  EXPECT_NEAR(static_cast<double>(*t.spec_draft_tokens) / static_cast<double>(*t.spec_drafts), 3.0, 0.01);
  ASSERT_TRUE(t.spec_accept_length.has_value());
  EXPECT_NEAR(*t.spec_accept_length, 2.5, 0.01);  // 1 + 150 / 100
  const std::string md = render_report(*result, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("## Speculative decoding"), std::string::npos);
  EXPECT_NE(md.find("| 50% | 2.50 |"), std::string::npos) << md;
  EXPECT_NE(md.find("decode figures are a floor"), std::string::npos);
}

TEST(SpeculationRun, SglangsAcceptLengthGaugeIsTheCellsTokensPerDraft) {
  test::ScriptedServerOptions opts;
  opts.flavour = test::ScriptedFlavour::Sglang;
  opts.extra_metrics = [] {
    return std::string(
        "# TYPE sglang:spec_accept_length gauge\n"
        "sglang:spec_accept_length{engine_type=\"unified\",model_name=\"scripted-model\",tp_rank=\"0\"} 3.25\n");
  };
  test::ScriptedServer server(opts);
  test::TempDir dir;
  ASSERT_EQ(run_matrix(one_cell(server.url(), dir.file("run"))), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->engine.kind, "sglang");
  const CellTelemetry& t = result->decode.at(0).telemetry;
  ASSERT_TRUE(t.spec_accept_length.has_value());
  EXPECT_DOUBLE_EQ(*t.spec_accept_length, 3.25);
  EXPECT_FALSE(t.spec_draft_tokens.has_value());  // SGLang exports no draft counters
  const std::string md = render_report(*result, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("## Speculative decoding"), std::string::npos);
  EXPECT_NE(md.find("3.25"), std::string::npos);
}

// The simulated engine drafting (sim --spec-tokens): a run reads its counters like vLLM's, and the
// accepted drafts arrive several tokens to a chunk.
TEST(SpeculationRun, TheSimulatedEngineSpeculatesAtItsAcceptanceRate) {
  sim::SimConfig sc;
  sc.kv_capacity_tokens = 1 << 16;
  sc.max_model_len = 8192;
  sc.spec_tokens = 4;
  sc.spec_accept_rate = 0.8;
  sim::LinearCostParams p;
  p.fixed_s = 0.004;
  p.per_stream_s = 0;
  p.per_context_token_s = 0;
  p.per_prefill_token_s = 1e-7;
  sc.cost_model = std::make_shared<sim::LinearCostModel>(p);
  auto server = sim::SimServer::start(sc);
  ASSERT_TRUE(server.has_value()) << server.error().message;
  test::TempDir dir;
  RunConfig c = one_cell((*server)->base_url(), dir.file("run"));
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  const DecodeCell& cell = result->decode.at(0);
  ASSERT_EQ(cell.status, CellStatus::Valid) << cell.error;
  const CellTelemetry& t = cell.telemetry;
  ASSERT_TRUE(t.spec_draft_tokens && t.spec_accepted_tokens && t.spec_accept_length);
  // Accepted with 0.8 until the first rejection, of 4: 0.8 + 0.64 + 0.512 + 0.41 = 2.36 per draft.
  EXPECT_NEAR(*t.spec_accept_length, 3.36, 0.25);
  ASSERT_TRUE(cell.tokens_per_chunk.has_value());
  EXPECT_GT(*cell.tokens_per_chunk, 2.5);  // each step's tokens arrive in one chunk
}

}  // namespace
}  // namespace sm
