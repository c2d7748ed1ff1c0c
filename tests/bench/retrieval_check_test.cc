#include "bench/retrieval_check.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/resume.h"
#include "bench/runner.h"
#include "result/result_json.h"
#include "sim/sim_tokenizer.h"
#include "support/temp_dir.h"
#include "workload/retrieval_probe.h"

namespace sm {
namespace {

class SimRuleCounter final : public TokenCounter {
 public:
  Result<int64_t> count(const std::string& text) override { return sim::SimTokenizer::count(text); }
  bool exact() const override { return true; }
};

DecodeCell cell_at(int64_t context, int64_t concurrency, CellStatus status = CellStatus::Valid) {
  DecodeCell c;
  c.context = context;
  c.concurrency = concurrency;
  c.status = status;
  return c;
}

RunResult matrix(std::vector<int64_t> contexts) {
  RunResult r;
  r.settings.seed = 5;
  r.engine.model = "Qwen3-4B";
  for (int64_t context : contexts)
    for (int64_t n : {1, 8}) r.decode.push_back(cell_at(context, n));
  return r;
}

// Answers from the needle it finds in the prompt's last `window` tokens, as a model would.
struct FakeServer {
  int64_t window = 0;
  int calls = 0;
  RetrievalCheckHooks hooks() {
    RetrievalCheckHooks h;
    h.head = [](int64_t context) { return "head " + std::to_string(context) + ":"; };
    h.ask = [this](const std::string& prompt, int64_t tokens, int64_t max_tokens) -> Result<CompletionResponse> {
      ++calls;
      EXPECT_EQ(max_tokens, kRetrievalMaxTokens);
      const int64_t skip = window > 0 && tokens > window ? tokens - window : 0;
      auto needle = find_needle(std::string_view(prompt).substr(sim::SimTokenizer::token_offset(prompt, skip)));
      CompletionResponse r;
      r.text = needle ? " The passkey is " + needle->passkey + "." : " The passkey is 1111111.";
      r.finish_reason = "stop";
      r.prompt_tokens = tokens;
      return r;
    };
    return h;
  }
};

bool warned(const DecodeCell& c) {
  return std::find(c.warnings.begin(), c.warnings.end(), kRetrievalFailedWarning) != c.warnings.end();
}

TEST(RetrievalCheck, OnlyMeasuredLongContextsWithoutACheckAreOwed) {
  RunResult r = matrix({0, 1024, 4096, 8192});
  for (auto& c : r.decode)
    if (c.context == 8192) c.status = CellStatus::OverCapacity;
  PrefillRow row{2048, CellStatus::Valid};
  r.prefill.push_back(row);
  EXPECT_EQ(retrieval_contexts_owed(r), (std::vector<int64_t>{1024, 2048, 4096}));
  RetrievalCheck done;
  done.context = 2048;
  done.verdict = RetrievalVerdict::Exact;
  r.retrieval.push_back(done);  // a resumed run keeps its finished checks
  EXPECT_EQ(retrieval_contexts_owed(r), (std::vector<int64_t>{1024, 4096}));
  r.engine.max_model_len = 4100;  // no room for an answer at 4096
  EXPECT_EQ(retrieval_contexts_owed(r), (std::vector<int64_t>{1024}));
}

TEST(RetrievalCheck, FailedContextsWarnOnEachOfTheirCells) {
  RunResult r = matrix({1024, 4096});
  SimRuleCounter counter;
  PromptBuilder builder(counter, 1);
  FakeServer server;
  server.window = 2048;
  std::vector<std::string> lines;
  RetrievalCheckHooks hooks = server.hooks();
  hooks.on_checked = [&](const RetrievalCheck& c) { lines.push_back(retrieval_summary(c)); };
  ASSERT_TRUE(run_retrieval_checks(r, builder, hooks));
  ASSERT_EQ(r.retrieval.size(), 2u);
  EXPECT_EQ(r.retrieval[0].context, 1024);
  EXPECT_EQ(r.retrieval[0].verdict, RetrievalVerdict::Exact);
  EXPECT_NEAR(r.retrieval[0].depth, 0.25, 0.01);
  EXPECT_EQ(r.retrieval[0].prompt_tokens, 1024);
  EXPECT_EQ(r.retrieval[1].verdict, RetrievalVerdict::Wrong);
  EXPECT_EQ(r.retrieval[1].excerpt, " The passkey is 1111111.");
  for (const auto& c : r.decode) EXPECT_EQ(warned(c), c.context == 4096) << c.context << "x" << c.concurrency;
  EXPECT_EQ(lines, (std::vector<std::string>{"retrieval 1K: exact",
                                             "retrieval 4K: wrong (the server did not read this context back)"}));
  // Idempotent: a second marking adds nothing, and nothing is owed any more.
  mark_retrieval_failures(r);
  EXPECT_EQ(r.decode.back().warnings.size(), 1u);
  EXPECT_TRUE(run_retrieval_checks(r, builder, hooks));
  EXPECT_EQ(server.calls, 2);
  // A cell measured again after a resume (fresh, no warnings) gets its warning back.
  r.decode.back() = cell_at(4096, 8);
  mark_retrieval_failures(r);
  EXPECT_TRUE(warned(r.decode.back()));
}

TEST(RetrievalCheck, SyntheticModelsAreNotApplicableWithoutARequest) {
  RunResult r = matrix({1024});
  r.engine.model = "synth-tiny";
  SimRuleCounter counter;
  PromptBuilder builder(counter, 1);
  FakeServer server;
  ASSERT_TRUE(run_retrieval_checks(r, builder, server.hooks()));
  EXPECT_EQ(server.calls, 0);
  ASSERT_EQ(r.retrieval.size(), 1u);
  EXPECT_EQ(r.retrieval[0].verdict, RetrievalVerdict::NotApplicable);
  EXPECT_FALSE(warned(r.decode[0]));
}

TEST(RetrievalCheck, AFailedRequestIsAnErrorNotAWarning) {
  RunResult r = matrix({1024});
  SimRuleCounter counter;
  PromptBuilder builder(counter, 1);
  RetrievalCheckHooks hooks;
  hooks.head = [](int64_t) { return std::string("h:"); };
  hooks.ask = [](const std::string&, int64_t, int64_t) -> Result<CompletionResponse> {
    return fail(ErrorCode::Http, "HTTP 400: too long");
  };
  ASSERT_TRUE(run_retrieval_checks(r, builder, hooks));
  EXPECT_EQ(r.retrieval[0].verdict, RetrievalVerdict::Error);
  EXPECT_EQ(r.retrieval[0].excerpt, "HTTP 400: too long");
  EXPECT_FALSE(warned(r.decode[0]));
  // Interrupted: nothing further starts, and an error caused by the interrupt is not kept.
  RunResult again = matrix({1024});
  hooks.interrupted = [] { return true; };
  EXPECT_FALSE(run_retrieval_checks(again, builder, hooks));
  EXPECT_TRUE(again.retrieval.empty());
}

TEST(RetrievalCheck, AResumedRunOwesTheChecksItHasNotFinished) {
  RunResult stored = matrix({4096});
  EXPECT_TRUE(resume_work(stored, false).nothing_to_do());  // older files: no check was asked
  // `--resume --retrieval-check` on a finished run without the check: the check is what is left.
  EXPECT_EQ(resume_work(stored, false, true).checks_owed, 1);
  EXPECT_FALSE(resume_work(stored, false, true).nothing_to_do());
  EXPECT_EQ(config_to_resume(stored, "d").retrieval_check, false);
  stored.settings.retrieval_check = true;
  EXPECT_EQ(config_to_resume(stored, "d").retrieval_check, true);
  const ResumeWork owed = resume_work(stored, false);
  EXPECT_EQ(owed.checks_owed, 1);
  EXPECT_TRUE(resume_work(stored, false, false).nothing_to_do());  // --no-retrieval-check: nothing left
  EXPECT_FALSE(owed.nothing_to_do());  // interrupted during the check: --resume runs it
  stored.retrieval.push_back(RetrievalCheck{4096, 0.25, RetrievalVerdict::Exact, 4096, true, "stop", "1"});
  EXPECT_TRUE(resume_work(stored, false).nothing_to_do());
}

TEST(RetrievalCheck, OnByDefaultOnlyForTheStandardProfile) {
  RunConfig c;
  EXPECT_FALSE(retrieval_check_wanted(c));
  c.profile = "standard/1";
  EXPECT_TRUE(retrieval_check_wanted(c));
  c.retrieval_check = false;
  EXPECT_FALSE(retrieval_check_wanted(c));
  c.profile = "quick/1";
  c.retrieval_check = true;
  EXPECT_TRUE(retrieval_check_wanted(c));
  c.retrieval_check.reset();
  EXPECT_FALSE(retrieval_check_wanted(c));
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// End to end: the built-in engine, whose model reads only the last 2K tokens, passes the check at
// 1K and fails it at 4K (the needle a quarter in, 1K tokens from the start, is 3K from the end).
TEST(RetrievalCheck, TheEmbeddedEngineFailsBeyondItsAttentionWindow) {
  test::TempDir dir;
  RunConfig c;
  c.embedded_sim = true;
  c.sim_attention_window = 2048;
  c.retrieval_check = true;
  c.matrix.contexts = {1024, 4096};
  c.contexts_given = true;
  c.matrix.concurrency = {1, 2};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 32;
  c.matrix.duration_s = 0.3;
  c.out_dir = dir.file("run");
  c.quiet = true;
  c.client_selftest = false;
  c.telemetry = false;
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->settings.retrieval_check, true);
  ASSERT_EQ(result->retrieval.size(), 2u);
  const RetrievalCheck& small = result->retrieval[0];
  const RetrievalCheck& large = result->retrieval[1];
  EXPECT_EQ(small.context, 1024);
  EXPECT_EQ(small.verdict, RetrievalVerdict::Exact) << small.excerpt;
  EXPECT_EQ(small.fact_found, true);
  EXPECT_EQ(small.prompt_tokens, 1024);
  EXPECT_EQ(small.finish_reason, "stop");
  EXPECT_EQ(large.context, 4096);
  EXPECT_EQ(large.verdict, RetrievalVerdict::Wrong) << large.excerpt;
  EXPECT_EQ(large.fact_found, false);
  EXPECT_EQ(large.prompt_tokens, 4096);
  for (const auto& cell : result->decode) {
    EXPECT_EQ(cell.status, CellStatus::Valid);
    EXPECT_EQ(warned(cell), cell.context == 4096) << cell.context << "x" << cell.concurrency;
  }
  const std::string md = read_text(dir.file("run/report.md"));
  EXPECT_NE(md.find("## Retrieval check"), std::string::npos);
  EXPECT_NE(md.find("Retrieval check at 4K: wrong"), std::string::npos);
  const std::string html = read_text(dir.file("run/report.html"));
  EXPECT_NE(html.find("id=\"retrieval-table\""), std::string::npos);
}

}  // namespace
}  // namespace sm
