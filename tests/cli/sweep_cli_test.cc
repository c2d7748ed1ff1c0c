// `speedmatrix sweep` as a user runs it: the real binary against the embedded simulated engine
// (short), the run folder it writes, `report` re-rendering it, and flag errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "site/json_schema.h"
#include "site/site_data.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Outcome run_binary(const test::TempDir& dir, const std::string& args) {
  std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  std::string cmd = "'" + std::string(SPEEDMATRIX_BINARY) + "' " + args + " >'" + out + "' 2>'" + err + "'";
  int status = std::system(cmd.c_str());
  Outcome r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test::read_file(out);
  r.err = test::read_file(err);
  return r;
}

TEST(SweepCli, EmbeddedEngineEndToEnd) {
  test::TempDir dir;
  const std::string run_dir = dir.file("run");
  Outcome o = run_binary(dir, "sweep --rates 2,4 --duration 1.5 --input-len 64:16 --output-len 16 --slo-ttft 2000 "
                              "--seed 7 --out '" + run_dir + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("Request-rate sweep"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("built-in simulated engine"), std::string::npos);

  auto result = read_result_file(run_dir + "/result.json");
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->kind, "simulated");
  ASSERT_TRUE(result->sweep.has_value());
  const SweepInfo& s = *result->sweep;
  EXPECT_EQ(s.arrivals, "poisson");
  EXPECT_EQ(s.input_len_mean, 64);
  EXPECT_EQ(s.input_len_sd, 16);
  EXPECT_EQ(s.slo_ttft_ms, 2000.0);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[0].rate_rps, 2);
  EXPECT_EQ(s.points[1].rate_rps, 4);
  for (const auto& p : s.points) {
    EXPECT_EQ(p.status, CellStatus::Valid) << p.error;
    EXPECT_GT(p.requests, 0);
    EXPECT_EQ(p.completed, p.requests);
    ASSERT_TRUE(p.ttft_ms && p.tpot_ms && p.e2e_ms && p.output_tok_s && p.goodput_rps);
    EXPECT_GT(p.ttft_ms->p50, 0);
    EXPECT_LE(p.ttft_ms->p50, p.ttft_ms->p99);
    EXPECT_LE(p.ttft_ms->p50, p.e2e_ms->p50);
    ASSERT_TRUE(p.output_tokens_mean.has_value());
    EXPECT_NEAR(*p.output_tokens_mean, 16, 0.01);  // the engine produces what was asked
    ASSERT_TRUE(p.input_tokens_mean.has_value());
    EXPECT_NEAR(*p.input_tokens_mean, 64, 24);
  }
  // Valid against docs/result-schema.json, `sweep` section included; and a file with a point of
  // the wrong shape is not.
  auto schema = site::JsonSchema::parse(site::site_data_file("result-schema.json").value());
  ASSERT_TRUE(schema.has_value()) << schema.error().message;
  auto written = nlohmann::json::parse(test::read_file(run_dir + "/result.json"));
  auto ok = schema->validate(written);
  EXPECT_TRUE(ok.has_value()) << ok.error().message;
  written["sweep"]["points"][0]["requests"] = "many";
  EXPECT_FALSE(schema->validate(written).has_value());

  // The reports beside it, with the chart; `report` re-renders the folder in every format.
  const std::string html = test::read_file(run_dir + "/report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("Latency against rate"), std::string::npos);
  Outcome md = run_binary(dir, "report '" + run_dir + "' --format md");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("| Rate/s |"), std::string::npos) << md.out;
  Outcome csv = run_binary(dir, "report '" + run_dir + "' --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(csv.out.starts_with("rate_rps,search,status,")) << csv.out;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 3);

  // --format json prints the result with its sweep section.
  Outcome js = run_binary(dir, "sweep --rates 3 --requests 3 --input-len 32 --output-len 4 --format json --quiet --out '" +
                                   dir.file("run2") + "'");
  ASSERT_EQ(js.exit_code, 0) << js.err;
  auto j = nlohmann::json::parse(js.out);
  ASSERT_EQ(j["sweep"]["points"].size(), 1u);
  EXPECT_EQ(j["sweep"]["points"][0]["requests"], 3);
  EXPECT_EQ(j["sweep"]["requests_per_rate"], 3);
  // The connection is recorded as `run` records it (issue 31 point 7): the round trip too.
  ASSERT_TRUE(j["connection"].is_object()) << j["connection"].dump();
  EXPECT_EQ(j["connection"]["rtt_requests"], 5) << j["connection"].dump();
  EXPECT_TRUE(j["connection"]["rtt_ms"].is_number()) << j["connection"].dump();
  EXPECT_EQ(j["connection"]["http_version"], "1.1") << j["connection"].dump();
}

// --prompts and --natural-eos are sweep flags too (docs/METRICS.md, "Prompt sources").
TEST(SweepCli, PromptsComeFromTheBuiltInText) {
  test::TempDir dir;
  Outcome o = run_binary(dir, "sweep --rates 3 --requests 3 --input-len 300 --output-len 4 --prompts text --natural-eos "
                              "--format json --quiet --out '" + dir.file("run") + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["settings"]["prompts"], "text");
  EXPECT_EQ(j["settings"]["natural_eos"], true);
  EXPECT_EQ(j["settings"]["prompt_corpus"]["licence"], "public domain");
  EXPECT_EQ(j["sweep"]["points"][0]["requests"], 3);
  Outcome bad = run_binary(dir, "sweep --rates 3 --prompts poems");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--prompts poems: expected random, text or code"), std::string::npos) << bad.err;
}

TEST(SweepCli, FlagErrorsNameTheFlag) {
  test::TempDir dir;
  Outcome o = run_binary(dir, "sweep --rates 0");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--rates"), std::string::npos) << o.err;
  o = run_binary(dir, "sweep --arrivals bursty");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--arrivals"), std::string::npos) << o.err;
  o = run_binary(dir, "sweep --input-len 100:x");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--input-len"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace sm
