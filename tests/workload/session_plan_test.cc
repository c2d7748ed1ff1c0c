// The sessions workload's plan: lengths and ranges, --sessions / --session-lengths, generated
// sessions (seeded, each turn after its session's previous one) and traces (the documented format,
// the example in docs/, and every error naming its line).
#include "workload/session_plan.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace sm {
namespace {

TEST(SessionPlan, TokenRangesAndTheSessionsFlag) {
  auto one = parse_token_range("1K");
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->lo, 1024);
  EXPECT_EQ(one->hi, 1024);
  EXPECT_EQ(format_token_range(*one), "1K");
  auto range = parse_token_range("128-512");
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->lo, 128);
  EXPECT_EQ(range->hi, 512);
  EXPECT_EQ(format_token_range(*range), "128-512");
  EXPECT_FALSE(parse_token_range("512-128").has_value());
  EXPECT_FALSE(parse_token_range("0").has_value());
  EXPECT_FALSE(parse_token_range("lots").has_value());

  SessionShape shape;
  ASSERT_TRUE(parse_sessions_flag("8x10", shape).has_value());
  EXPECT_EQ(shape.sessions, 8);
  EXPECT_EQ(shape.turns, 10);
  for (const char* bad : {"8", "x10", "8x", "0x3", "3x0", "8x10x2", "-1x3", "5000x2"}) {
    SessionShape s;
    auto r = parse_sessions_flag(bad, s);
    EXPECT_FALSE(r.has_value()) << bad;
  }
  ASSERT_TRUE(parse_session_lengths("first=2K,answer=64-256", shape).has_value());
  EXPECT_EQ(shape.first.lo, 2048);
  EXPECT_EQ(shape.user.lo, 256);  // not given: the default stays
  EXPECT_EQ(shape.answer.hi, 256);
  auto wrong = parse_session_lengths("first=2K,reply=10", shape);
  ASSERT_FALSE(wrong.has_value());
  EXPECT_NE(wrong.error().message.find("first=, user= or answer="), std::string::npos) << wrong.error().message;
}

TEST(SessionPlan, GeneratedSessionsAreSeededAndEachTurnFollowsItsSessionsLast) {
  SessionShape shape;
  shape.sessions = 3;
  shape.turns = 4;
  shape.user = {100, 300};
  const SessionPlan a = generate_sessions(shape, 42);
  const SessionPlan b = generate_sessions(shape, 42);
  ASSERT_EQ(a.turns.size(), 12u);
  EXPECT_EQ(a.sessions, 3);
  EXPECT_EQ(a.max_turns, 4);
  ASSERT_EQ(a.prefixes.size(), 3u);  // each session its own opening
  bool varied = false;
  for (size_t i = 0; i < a.turns.size(); ++i) {
    const SessionTurn& t = a.turns[i];
    EXPECT_EQ(t.input_tokens, b.turns[i].input_tokens) << "seeded";
    EXPECT_GE(t.input_tokens, 100);
    EXPECT_LE(t.input_tokens, 300);
    varied |= t.input_tokens != a.turns[0].input_tokens;
    EXPECT_EQ(t.output_tokens, 128);
    EXPECT_EQ(t.at_ns, 0);
    if (t.turn == 1) {
      EXPECT_EQ(t.after, -1);
      EXPECT_EQ(t.prefix, t.session);
    } else {
      ASSERT_GE(t.after, 0);
      const SessionTurn& before = a.turns[static_cast<size_t>(t.after)];
      EXPECT_EQ(before.session, t.session);
      EXPECT_EQ(before.turn, t.turn - 1);
      EXPECT_LT(static_cast<size_t>(t.after), i);
      EXPECT_EQ(t.prefix, -1);
    }
  }
  EXPECT_TRUE(varied) << "a range draws per turn";
  const SessionPlan other = generate_sessions(shape, 43);
  bool differs = false;
  for (size_t i = 0; i < a.turns.size(); ++i) differs |= other.turns[i].input_tokens != a.turns[i].input_tokens;
  EXPECT_TRUE(differs) << "another seed draws other lengths";
}

TEST(SessionPlan, ATraceGivesTurnsInTimeOrderWithSharedPrefixesAndScaledTimes) {
  const std::string trace =
      R"({"session": "a", "timestamp_s": 0.0, "input_tokens": 100, "output_tokens": 20, "prefix": "sys", "prefix_tokens": 500})"
      "\n"
      R"({"session": 7, "timestamp_s": 1.0, "input_tokens": 50, "output_tokens": 10, "prefix": "sys"})"
      "\n\n"
      R"({"session": "a", "timestamp_s": 4.0, "input_tokens": 30, "output_tokens": 40})"
      "\n"
      R"({"session": 7, "input_tokens": 60, "output_tokens": 15})"
      "\r\n";
  auto plan = parse_session_trace(trace, 2.0);
  ASSERT_TRUE(plan.has_value()) << plan.error().message;
  EXPECT_EQ(plan->sessions, 2);
  EXPECT_EQ(plan->max_turns, 2);
  ASSERT_EQ(plan->prefixes.size(), 1u);  // "sys", shared
  EXPECT_EQ(plan->prefixes[0].tokens, 500);
  ASSERT_EQ(plan->turns.size(), 4u);
  // By time (halved): a1 at 0, 7/1 at 0.5 s, 7/2 with no time of its own (due at its session's
  // last time: sent when the answer ends), a2 at 2 s.
  EXPECT_EQ(plan->turns[0].session, 0);
  EXPECT_EQ(plan->turns[0].prefix, 0);
  EXPECT_EQ(plan->turns[1].session, 1);
  EXPECT_EQ(plan->turns[1].at_ns, 500 * 1000 * 1000);
  EXPECT_EQ(plan->turns[1].prefix, 0);
  EXPECT_EQ(plan->turns[2].session, 1);
  EXPECT_EQ(plan->turns[2].turn, 2);
  EXPECT_EQ(plan->turns[2].after, 1);
  EXPECT_EQ(plan->turns[3].at_ns, 2000 * 1000 * 1000);
  EXPECT_EQ(plan->turns[3].after, 0);
  EXPECT_EQ(plan->turns[3].input_tokens, 30);
  EXPECT_EQ(plan->turns[3].output_tokens, 40);
}

TEST(SessionPlan, BadTracesAreRefusedWithTheirLine) {
  const auto error = [](const std::string& text) {
    auto plan = parse_session_trace(text, 1.0);
    return plan ? std::string("accepted") : plan.error().message;
  };
  EXPECT_EQ(error(""), "the trace has no turns (one JSON object per line)");
  EXPECT_EQ(error("{\"session\": 1, \"input_tokens\": 5, \"output_tokens\": 5}\nnot json\n"),
            "trace line 2: not a JSON object");
  EXPECT_EQ(error("{\"input_tokens\": 5, \"output_tokens\": 5}"),
            "trace line 1: \"session\" (a string or an integer) is required");
  EXPECT_NE(error("{\"session\": 1, \"output_tokens\": 5}").find("\"input_tokens\""), std::string::npos);
  EXPECT_NE(error("{\"session\": 1, \"input_tokens\": 0, \"output_tokens\": 5}").find("whole number of tokens"),
            std::string::npos);
  EXPECT_NE(error("{\"session\": 1, \"timestamp_s\": 5, \"input_tokens\": 5, \"output_tokens\": 5}\n"
                  "{\"session\": 1, \"timestamp_s\": 2, \"input_tokens\": 5, \"output_tokens\": 5}")
                .find("trace line 2: session \"1\" goes back in time"),
            std::string::npos);
  EXPECT_NE(error("{\"session\": 1, \"input_tokens\": 5, \"output_tokens\": 5, \"prefix\": \"p\"}")
                .find("needs \"prefix_tokens\""),
            std::string::npos);
  EXPECT_NE(error("{\"session\": 1, \"turn\": 1, \"input_tokens\": 5, \"output_tokens\": 5}\n"
                  "{\"session\": 1, \"turn\": 1, \"input_tokens\": 5, \"output_tokens\": 5}")
                .find("has turn 1 twice"),
            std::string::npos);
  EXPECT_FALSE(parse_session_trace("{\"session\": 1, \"input_tokens\": 5, \"output_tokens\": 5}", 0).has_value());
}

TEST(SessionPlan, TheDocumentedExampleTraceReads) {
  std::ifstream in(std::string(SPEEDMATRIX_SOURCE_DIR) + "/docs/examples/session-trace.jsonl");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  auto plan = parse_session_trace(text.str(), 1.0);
  ASSERT_TRUE(plan.has_value()) << plan.error().message;
  EXPECT_EQ(plan->sessions, 3);
  EXPECT_EQ(plan->max_turns, 4);      // coder-1
  EXPECT_EQ(plan->prefixes.size(), 2u);  // support-system shared by two sessions, repo-context
}

}  // namespace
}  // namespace sm
