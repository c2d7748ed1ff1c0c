// Prompt sources through a run (docs/METRICS.md, "Prompt sources"): prompts cut from the built-in
// text or a dataset at the exact length, recorded with the corpus's hash, and --natural-eos
// sending no ignore_eos and reporting the answers' lengths per cell; resume refuses another corpus.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "bench/profile_check.h"
#include "bench/runner.h"
#include "cli/prompt_flags.h"
#include "report/report.h"
#include "result/profile.h"
#include "result/result_json.h"
#include "support/result_schema.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

RunConfig small_run(const std::string& url, const std::string& out) {
  RunConfig c;
  c.target.base_url = url;
  c.matrix.contexts = {512};
  c.contexts_given = true;
  c.matrix.concurrency = {2};
  c.matrix.prefill_contexts = {512};
  c.matrix.max_output_tokens = 64;
  c.matrix.duration_s = 0.3;
  c.out_dir = out;
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  return c;
}

TEST(PromptSources, ARunCutsItsPromptsFromTheTextAndLetsTheModelEndItsAnswers) {
  test::ScriptedServerOptions opts;
  opts.script = [](const test::RequestInfo& req) {
    test::StreamScript s;
    // A model that ends its answer after 7 tokens unless told to ignore end of sequence.
    if (req.body.find("ignore_eos") == std::string::npos && req.max_tokens > 7) s.output_tokens = 7;
    return s;
  };
  test::ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = small_run(server.url(), dir.file("run"));
  cli::PromptFlags flags;
  flags.prompts = "text";
  flags.natural_eos = true;
  ASSERT_TRUE(cli::apply_prompt_flags(flags, c.prompts, c.target).has_value());
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->settings.prompts, "text");
  ASSERT_TRUE(result->settings.prompt_corpus.has_value());
  EXPECT_EQ(result->settings.prompt_corpus->sha256, c.prompts.corpus->sha256);
  EXPECT_EQ(result->settings.prompt_corpus->licence, "public domain");
  EXPECT_TRUE(result->settings.natural_eos);
  ASSERT_EQ(result->decode.size(), 1u);
  const DecodeCell& cell = result->decode[0];
  ASSERT_EQ(cell.status, CellStatus::Valid) << cell.error;
  ASSERT_TRUE(cell.ended_output_tokens.has_value());
  EXPECT_DOUBLE_EQ(cell.ended_output_tokens->p50, 7.0);
  EXPECT_DOUBLE_EQ(cell.ended_output_tokens->p99, 7.0);
  EXPECT_GT(*cell.requests_ended, 2);
  EXPECT_TRUE(cell.prompt_length_ok);
  EXPECT_EQ(result->prefill.at(0).status, CellStatus::Valid);
  // No request asked to ignore the end of sequence, and the prompts are the novel's text.
  int with_text = 0;
  for (const auto& req : server.all_requests()) {
    if (req.path != "/v1/completions") continue;
    EXPECT_EQ(req.body.find("ignore_eos"), std::string::npos);
    EXPECT_EQ(req.body.find("min_tokens"), std::string::npos);
    const std::string prompt = nlohmann::json::parse(req.body)["prompt"];
    const size_t line = prompt.find('\n');
    if (line != std::string::npos && c.prompts.corpus->text.find(prompt.substr(line + 1, 200)) != std::string::npos)
      ++with_text;
  }
  EXPECT_GT(with_text, 2);
  // The file follows the schema; the report says where the prompts came from and how long the answers were.
  EXPECT_TRUE(test::follows_result_schema(dir.file("run/result.json")));
  const std::string md = render_report(*result, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("Natural text: News from Nowhere (William Morris, 1890), public domain · sha256 " +
                    c.prompts.corpus->sha256.substr(0, 12)),
            std::string::npos);
  EXPECT_NE(md.find("## Answer lengths"), std::string::npos);
  EXPECT_NE(md.find("answers ended by the model"), std::string::npos);
  EXPECT_EQ(md.find("output length not forced"), std::string::npos);
  const std::string html = render_report(*result, ReportFormat::Html, {});
  EXPECT_NE(html.find("id=\"answer-lengths\""), std::string::npos);
}

TEST(PromptSources, ADatasetRunResumesOnlyWithTheSameFile) {
  test::ScriptedServer server;
  test::TempDir dir;
  {
    std::ofstream f(dir.file("prompts.jsonl"));
    for (int i = 0; i < 50; ++i) f << "{\"prompt\": \"Question " << i << ": how fast is this server today?\"}\n";
  }
  RunConfig c = small_run(server.url(), dir.file("run"));
  cli::PromptFlags flags;
  flags.dataset = dir.file("prompts.jsonl");
  ASSERT_TRUE(cli::apply_prompt_flags(flags, c.prompts, c.target).has_value());
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->settings.prompts, "dataset");
  EXPECT_EQ(result->settings.prompt_corpus->name, "prompts.jsonl");
  EXPECT_EQ(result->settings.prompt_corpus->texts, 50);
  EXPECT_FALSE(result->settings.natural_eos);
  EXPECT_EQ(result->decode.at(0).status, CellStatus::Valid);
  EXPECT_FALSE(result->decode.at(0).ended_output_tokens.has_value());  // forced lengths: no distribution
  // Resuming: the same file again is accepted; none, or another, is refused.
  RunConfig again;
  EXPECT_TRUE(cli::resume_prompt_source(result->settings, flags, {}, again).has_value());
  EXPECT_EQ(again.prompts.name, "dataset");
  EXPECT_EQ(again.prompts.corpus->sha256, result->settings.prompt_corpus->sha256);
  auto without = cli::resume_prompt_source(result->settings, {}, {}, again);
  ASSERT_FALSE(without.has_value());
  EXPECT_NE(without.error().message.find("give it again with --dataset FILE"), std::string::npos);
  {
    std::ofstream f(dir.file("prompts.jsonl"), std::ios::app);
    f << "{\"prompt\": \"one more\"}\n";
  }
  auto changed = cli::resume_prompt_source(result->settings, flags, {}, again);
  ASSERT_FALSE(changed.has_value());
  EXPECT_NE(changed.error().message.find("is not the text the interrupted run cut its prompts from"), std::string::npos);
  cli::PromptFlags text;
  text.prompts = "text";
  auto other = cli::resume_prompt_source(result->settings, text, {"--prompts"}, again);
  ASSERT_FALSE(other.has_value());
  EXPECT_NE(other.error().message.find("cut its prompts from 'dataset', not 'text'"), std::string::npos);
}

TEST(PromptSources, FlagsAreCheckedAndLeaveTheProfile) {
  RunConfig c;
  cli::PromptFlags bad;
  bad.prompts = "poems";
  auto refused = cli::apply_prompt_flags(bad, c.prompts, c.target);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message, "--prompts poems: expected random, text or code (a file of your own: --dataset FILE)");
  cli::PromptFlags both;
  both.prompts = "code";
  both.dataset = "x.jsonl";
  EXPECT_FALSE(cli::apply_prompt_flags(both, c.prompts, c.target).has_value());
  // A standard-profile run on real text or with natural answers follows no profile.
  auto profile = find_profile("standard");
  ASSERT_TRUE(profile.has_value());
  RunConfig text;
  cli::PromptFlags t;
  t.prompts = "code";
  ASSERT_TRUE(cli::apply_prompt_flags(t, text.prompts, text.target).has_value());
  const std::string note = apply_profile(*profile, {"--prompts"}, text);
  EXPECT_TRUE(text.profile.empty());
  EXPECT_NE(note.find("--prompts changes a setting the"), std::string::npos) << note;
  RunConfig natural;
  natural.target.natural_eos = true;
  apply_profile(*profile, {"--natural-eos"}, natural);
  EXPECT_TRUE(natural.profile.empty());
  RunConfig plain;
  apply_profile(*profile, {}, plain);
  EXPECT_EQ(plain.profile, profile->id);
}

}  // namespace
}  // namespace sm
