// `speedmatrix report` and `speedmatrix compare` as a user runs them: the real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "report/golden.h"
#include "report/report.h"
#include "result/result_json.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the binary with `args` (a shell fragment) and `env` prefixed; stdout is a file, never a tty.
Outcome run_binary(const test::TempDir& dir, const std::string& args, const std::string& env = "") {
  std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  std::string cmd = env + " '" + std::string(SPEEDMATRIX_BINARY) + "' " + args + " >'" + out + "' 2>'" + err + "'";
  int status = std::system(cmd.c_str());
  Outcome r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test::read_file(out);
  r.err = test::read_file(err);
  return r;
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::string seed_path() { return quoted(test::tests_path("fixtures/seed-rtx3090-qwen3.5-4b.json")); }
std::string variant_path() { return quoted(test::tests_path("fixtures/variant-rtx3090-qwen3.5-4b.json")); }

bool one_line(const std::string& text) {
  return !text.empty() && text.find('\n') == text.size() - 1;
}

TEST(ReportCli, RendersEveryFormat) {
  test::TempDir dir;
  RunResult seed = test::seed_fixture();
  for (auto [name, format] : {std::pair{"md", ReportFormat::Markdown}, std::pair{"csv", ReportFormat::Csv},
                              std::pair{"html", ReportFormat::Html}}) {
    Outcome r = run_binary(dir, "report " + seed_path() + " --format " + name);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, render_report(seed, format, {})) << name;
  }
  // Not a terminal: plain text, width 100.
  Outcome term = run_binary(dir, "report " + seed_path());
  EXPECT_EQ(term.exit_code, 0);
  EXPECT_EQ(term.out, render_report(seed, ReportFormat::Term, {false, 100}));
}

TEST(ReportCli, ColourOnlyWhenAskedAndNoColorWins) {
  test::TempDir dir;
  Outcome always = run_binary(dir, "report " + seed_path() + " --color always");
  EXPECT_NE(always.out.find("\x1b["), std::string::npos);
  Outcome piped = run_binary(dir, "report " + seed_path());
  EXPECT_EQ(piped.out.find("\x1b["), std::string::npos);
  // NO_COLOR turns colour off even under `script`-like terminals; --color always still overrides it.
  Outcome no_color = run_binary(dir, "report " + seed_path() + " --color auto", "NO_COLOR=1");
  EXPECT_EQ(no_color.out.find("\x1b["), std::string::npos);
}

TEST(ReportCli, OutFileAndFormatFromItsName) {
  test::TempDir dir;
  Outcome r = run_binary(dir, "report " + seed_path() + " --out " + quoted(dir.file("x.html")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(test::read_file(dir.file("x.html")).starts_with("<!DOCTYPE html>"));
  // A run folder works as well as its result.json.
  std::filesystem::create_directory(dir.file("run"));
  std::filesystem::copy_file(test::tests_path("fixtures/seed-rtx3090-qwen3.5-4b.json"), dir.file("run/result.json"));
  r = run_binary(dir, "report " + quoted(dir.file("run")) + " --format md");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("# Qwen3.5-4B-AWQ-4bit on RTX 3090 24GB"));
}

TEST(ReportCli, BadInputIsOneLineAndExitOne) {
  test::TempDir dir;
  Outcome missing = run_binary(dir, "report " + quoted(dir.file("nope.json")));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(one_line(missing.err)) << missing.err;
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos);

  std::ofstream(dir.file("bad.json")) << "{ not json";
  Outcome bad = run_binary(dir, "report " + quoted(dir.file("bad.json")));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(one_line(bad.err)) << bad.err;
  EXPECT_NE(bad.err.find("not valid JSON"), std::string::npos);

  std::ofstream(dir.file("v9.json")) << R"({"schema_version": 9})";
  Outcome schema = run_binary(dir, "report " + quoted(dir.file("v9.json")));
  EXPECT_EQ(schema.exit_code, 1);
  EXPECT_TRUE(one_line(schema.err)) << schema.err;
  EXPECT_NE(schema.err.find("schema_version"), std::string::npos);

  Outcome unwritable = run_binary(dir, "report " + seed_path() + " --out " + quoted(dir.file("no/such/dir/r.html")));
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_TRUE(one_line(unwritable.err)) << unwritable.err;
}

TEST(ReportCli, UsageErrorsExitTwo) {
  test::TempDir dir;
  EXPECT_EQ(run_binary(dir, "report").exit_code, 2);
  EXPECT_EQ(run_binary(dir, "report " + seed_path() + " --format pdf").exit_code, 2);
  EXPECT_EQ(run_binary(dir, "report " + seed_path() + " --color sometimes").exit_code, 2);
  EXPECT_EQ(run_binary(dir, "compare " + seed_path()).exit_code, 2);
  EXPECT_EQ(run_binary(dir, "compare " + seed_path() + " " + variant_path() + " --format csv").exit_code, 2);
}

TEST(CompareCli, TwoAndThreeRuns) {
  test::TempDir dir;
  Outcome two = run_binary(dir, "compare " + seed_path() + " " + variant_path());
  EXPECT_EQ(two.exit_code, 0) << two.err;
  EXPECT_NE(two.out.find("B vs A: output tok/s"), std::string::npos);
  EXPECT_NE(two.out.find("seed-rtx3090-qwen3.5-4b"), std::string::npos);
  Outcome three = run_binary(dir, "compare " + seed_path() + " " + variant_path() + " " + seed_path() + " --format md");
  EXPECT_EQ(three.exit_code, 0) << three.err;
  EXPECT_NE(three.out.find("C vs A"), std::string::npos);
  Outcome html = run_binary(dir, "compare " + seed_path() + " " + variant_path() + " --out " + quoted(dir.file("c.html")));
  EXPECT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(test::read_file(dir.file("c.html")).find("id=\"ratios-B\""), std::string::npos);
  Outcome missing = run_binary(dir, "compare " + seed_path() + " " + quoted(dir.file("nope.json")));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(one_line(missing.err)) << missing.err;
}

TEST(CompareCli, JsonForScriptsAndCi) {
  test::TempDir dir;
  Outcome json = run_binary(dir, "compare " + seed_path() + " " + variant_path() + " --format json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["comparisons"].size(), 1u);
  EXPECT_TRUE(doc["comparisons"][0]["decode"][0]["total_tok_s"]["significant"].is_boolean());
  EXPECT_FALSE(doc["comparisons"][0]["run_id"].get<std::string>().empty());
  // --out with a .json name and no --format: JSON too.
  Outcome out = run_binary(dir, "compare " + seed_path() + " " + variant_path() + " --out " + quoted(dir.file("c.json")));
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(nlohmann::json::parse(test::read_file(dir.file("c.json"))), doc);
  EXPECT_EQ(run_binary(dir, "compare " + seed_path() + " " + variant_path() + " --format yaml").exit_code, 2);
}

TEST(ReportCli, HtmlOfARunFolderDrawsItsTelemetrySeries) {
  test::TempDir dir;
  const std::string folder = test::telemetry_run_dir();
  for (const std::string& path : {folder, folder + "/result.json"}) {
    Outcome r = run_binary(dir, "report " + quoted(path) + " --format html");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("id=\"telemetry-chart\""), std::string::npos) << path;
  }
  // The result alone: the same report without the chart.
  std::filesystem::copy_file(folder + "/result.json", dir.file("result.json"));
  Outcome alone = run_binary(dir, "report " + quoted(dir.file("result.json")) + " --format html");
  EXPECT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(alone.out.find("telemetry-chart"), std::string::npos);
  EXPECT_NE(alone.out.find("id=\"efficiency-matrix\""), std::string::npos);
  // A broken series: said on stderr, the report still written.
  { std::ofstream(dir.file("telemetry.jsonl")) << "{\"kind\":\"gpu\"}\n{oops\n{\"kind\":\"gpu\"}\n"; }
  Outcome broken = run_binary(dir, "report " + quoted(dir.path().string()) + " --out " + quoted(dir.file("r.html")));
  EXPECT_EQ(broken.exit_code, 0) << broken.err;
  EXPECT_TRUE(one_line(broken.err)) << broken.err;
  EXPECT_NE(broken.err.find("no time chart"), std::string::npos) << broken.err;
  EXPECT_EQ(test::read_file(dir.file("r.html")), alone.out);
  // Other formats do not read the series.
  Outcome md = run_binary(dir, "report " + quoted(dir.path().string()) + " --format md");
  EXPECT_EQ(md.exit_code, 0);
  EXPECT_EQ(md.err, "");
}

TEST(WriteRunReports, WritesThreeFilesBesideResultJson) {
  test::TempDir dir;
  RunResult seed = test::seed_fixture();
  ASSERT_TRUE(write_run_reports(seed, dir.path().string()).has_value());
  EXPECT_EQ(test::read_file(dir.file("report.html")), render_report(seed, ReportFormat::Html, {}));
  EXPECT_EQ(test::read_file(dir.file("report.md")), render_report(seed, ReportFormat::Markdown, {}));
  EXPECT_EQ(test::read_file(dir.file("measurements.csv")), render_report(seed, ReportFormat::Csv, {}));
  EXPECT_FALSE(write_run_reports(seed, dir.file("missing")).has_value());
}

}  // namespace
}  // namespace sm
