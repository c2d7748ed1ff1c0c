// What a new user's typos get: the unknown command or flag named, the closest real one
// suggested, and ranges stated without contradiction.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

#include "cli/suggest.h"
#include "net/url.h"
#include "support/run_binary.h"

namespace sm::cli {
namespace {

using Outcome = test::BinaryOutcome;
using test::run_binary;

TEST(Suggest, ClosestNameWithinAFewEdits) {
  EXPECT_EQ(edit_distance("context", "contexts"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(closest_name("--context", {"--contexts", "--concurrency", "--duration"}), "--contexts");
  EXPECT_EQ(closest_name("--concurency", {"--contexts", "--concurrency"}), "--concurrency");
  EXPECT_EQ(closest_name("rnu", {"run", "probe", "report"}), "run");
  EXPECT_EQ(closest_name("--dur", {"--duration", "--format"}), "--duration");  // a prefix
  EXPECT_FALSE(closest_name("frobnicate", {"run", "probe", "report"}).has_value());
}

TEST(CliErrors, UnknownCommandIsNamedWithTheList) {
  Outcome o = run_binary("frobnicate");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("unknown command 'frobnicate'"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("  run "), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("A subcommand is required"), std::string::npos) << o.output;
  o = run_binary("reprot");
  EXPECT_NE(o.output.find("did you mean 'report'?"), std::string::npos) << o.output;
}

TEST(CliErrors, MisspeltFlagSuggestsTheRightOne) {
  Outcome o = run_binary("run --context 0 --dry-run");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("speedmatrix run: unknown option --context (did you mean --contexts?)"), std::string::npos)
      << o.output;
}

TEST(CliErrors, SessionsAloneArePlannedAndBadOnesRefused) {
  Outcome o = run_binary("run --dry-run --contexts none --prefill-contexts none --sessions 2x3");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("Then 2 sessions of 3 turns (opening 1K tokens, each turn 256, answers 128)"),
            std::string::npos)
      << o.output;
  o = run_binary("run --dry-run --sessions 2");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("--sessions: \"2\": SESSIONSxTURNS"), std::string::npos) << o.output;
  o = run_binary("run --dry-run --trace /nonexistent/trace.jsonl");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("--trace /nonexistent/trace.jsonl: cannot read the file"), std::string::npos) << o.output;
}

TEST(CliErrors, RangesAndUrlsAreExplained) {
  Outcome o = run_binary("run --duration 0 --dry-run");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("--duration must be more than 0 and at most 86400 seconds (got 0)"), std::string::npos)
      << o.output;
  o = run_binary("run --contexts 20M --dry-run");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("10M"), std::string::npos) << o.output;
  o = run_binary("run --url ftp://host:8000 --dry-run");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.output.find("--url must be an http:// or https:// URL"), std::string::npos) << o.output;
  o = run_binary("run --url localhost:8000 --dry-run");
  EXPECT_NE(o.output.find("did you mean http://localhost:8000 ?"), std::string::npos) << o.output;
  EXPECT_TRUE(check_http_url("--url", "https://gpu-box:8000/v1").has_value());
  EXPECT_FALSE(check_http_url("--url", "http://").has_value());
}

TEST(CliErrors, DryRunEstimatesTheTotalTime) {
  // 2 decode cells × (10 s + 2 s) + 1 prefill row × 1 s = 25 s.
  Outcome o = run_binary("run --dry-run --contexts 0 --concurrency 1,2 --prefill-contexts 512 --duration 10");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("Estimated time: 25s"), std::string::npos) << o.output;
  o = run_binary("run --dry-run --contexts none --prefill-contexts 512 --max-output 1");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  // Adaptive windows: between --min-window (2 × (5 + 2) + 1 = 15 s) and --duration (25 s).
  o = run_binary("run --dry-run --contexts 0 --concurrency 1,2 --prefill-contexts 512 --duration 10 --precision 2%");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("Estimated time: 15s to 25s"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("5-10 s adaptive window"), std::string::npos) << o.output;
  // An audit of the rule runs every window to the cap.
  o = run_binary("run --dry-run --contexts 0 --concurrency 1,2 --prefill-contexts 512 --duration 10 --precision 2% "
                 "--precision-audit");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("Estimated time: 25s"), std::string::npos) << o.output;
  o = run_binary("run --dry-run --contexts 0 --precision-audit");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.output.find("--precision-audit needs --precision"), std::string::npos) << o.output;
  // Burst cells take as long as the server does: only their overhead is counted, and said so.
  o = run_binary("run --dry-run --contexts 0 --concurrency 1,2 --prefill-contexts 512 --requests 20 --format json");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("\"estimate_excludes_decode_windows\": true"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("\"estimated_seconds\": 5.0"), std::string::npos) << o.output;
}

// Issue 31 point 8: `--requests 0` was silently a timed matrix, and `--quick --precision 2%`
// planned a 5 s minimum window inside 2 s cells.
TEST(CliErrors, ABurstOfNoRequestsAndAMinimumWindowBeyondTheCellsAreRefused) {
  Outcome o = run_binary("run --dry-run --contexts 0 --requests 0");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("--requests must be between 1 and 1,000,000 (got 0)"), std::string::npos) << o.output;
  o = run_binary("run --dry-run --contexts 0 --concurrency 1 --prefill-contexts none --duration 10 --precision 2% "
                 "--min-window 20");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("--min-window 20 s is longer than the cells' windows (10 s"), std::string::npos) << o.output;
  // The default minimum (5 s) inside --quick's 2 s cells: brought down to them, not planned beyond.
  o = run_binary("run --dry-run --quick --contexts 0 --concurrency 1 --prefill-contexts none --precision 2%");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("2-2 s adaptive window"), std::string::npos) << o.output;
}

}  // namespace
}  // namespace sm::cli
