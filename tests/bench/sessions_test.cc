// The sessions workload (run --sessions / --trace): the open loop's waits (a turn goes out when
// its session's previous answer ends, with that answer in its prompt), the figures from the
// requests, and whole runs against a scripted server with a prefix cache of its own.
#include "bench/sessions_phase.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <mutex>

#include "bench/open_loop.h"
#include "bench/runner.h"
#include "cli/session_flags.h"
#include "engines/request_builder.h"
#include "metrics/session_metrics.h"
#include "report/report.h"
#include "result/result_json.h"
#include "support/result_schema.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

HttpRequest completion(const test::ScriptedServer& server, const std::string& prompt, int64_t max_tokens) {
  CompletionSpec spec;
  spec.model = "scripted-model";
  spec.prompt = prompt;
  spec.max_tokens = max_tokens;
  return HttpRequest{server.url() + "/v1/completions",
                     build_completion_body(EngineKind::Vllm, ApiKind::Completions, spec), {}};
}

std::string prompt_of(const test::RequestInfo& info) {
  const auto body = nlohmann::json::parse(info.body, nullptr, false);
  return body.is_object() && body.contains("prompt") && body["prompt"].is_string() ? body["prompt"].get<std::string>()
                                                                                   : std::string();
}

TEST(SessionsLoop, ATurnWaitsForTheAnswerItFollowsAndCarriesIt) {
  test::ScriptedServer server;
  OpenLoop loop(SteadyClock::instance(), {});
  OpenLoopSpec spec;
  spec.drain_timeout_ns = 30 * kNsPerS;
  spec.requests.push_back(PlannedRequest{0, completion(server, "first question", 6), 6, -1, true});
  PlannedRequest second{0, {}, 4, 0, true};  // due at once, but after request 0
  spec.requests.push_back(second);
  spec.requests.push_back(PlannedRequest{0, completion(server, "another session", 3), 3});
  spec.prepare = [&](size_t i, const std::vector<std::string>& answers) {
    EXPECT_EQ(i, 1u);
    return completion(server, "first question" + answers[0] + " and then?", 4);
  };
  OpenLoopOutcome out = loop.run(spec);
  ASSERT_EQ(out.requests.size(), 3u);
  // Sent in the order they could go: 0 and 2 at once, 1 when 0 ended.
  EXPECT_EQ(out.requests[0].record.slot, 0);
  EXPECT_EQ(out.requests[1].record.slot, 2);
  EXPECT_EQ(out.requests[2].record.slot, 1);
  const TimedRequest& first = out.requests[0];
  const TimedRequest& follow = out.requests[2];
  ASSERT_EQ(first.record.end, RequestEnd::Finished);
  EXPECT_GE(follow.record.send_ns, first.record.end_ns);
  EXPECT_EQ(follow.intended_ns, first.record.end_ns) << "due when the answer it follows ended";
  EXPECT_EQ(follow.record.tokens, 4);
  // The answer's text was kept, and the server saw it in the next turn's prompt.
  ASSERT_FALSE(out.answers[0].empty());
  EXPECT_TRUE(out.answers[2].empty()) << "not kept";
  server.stop();
  const auto requests = server.all_requests();
  const auto turn2 = std::find_if(requests.begin(), requests.end(), [](const test::RequestInfo& r) {
    return prompt_of(r).ends_with(" and then?");
  });
  ASSERT_NE(turn2, requests.end());
  EXPECT_EQ(prompt_of(*turn2), "first question" + out.answers[0] + " and then?");
}

RequestRecord turn_record(int64_t send_ms, int64_t ttft_ms, int64_t prompt, int64_t cached, int64_t tokens) {
  RequestRecord r;
  r.send_ns = send_ms * kNsPerMs;
  r.first_token_ns = (send_ms + ttft_ms) * kNsPerMs;
  for (int64_t i = 0; i < tokens; ++i) r.chunks.push_back({r.first_token_ns + i * 10 * kNsPerMs, 1});
  r.tokens = tokens;
  r.end_ns = r.chunks.back().t_ns;
  r.end = RequestEnd::Finished;
  r.usage_prompt_tokens = prompt;
  r.cached_prompt_tokens = cached;
  return r;
}

TEST(SessionsMetrics, PerTurnDepthCacheShareTtftAndDecodeRate) {
  // Two sessions: turn 1 cold (1,000-token prompts, 400 ms), turn 2 mostly cached (1,300 tokens,
  // 1,000 of them cached, 50 ms); one turn 2 sent 30 ms after it was due. 11 tokens 10 ms apart:
  // 100 tok/s after the first.
  const std::vector<RequestRecord> records = {turn_record(0, 400, 1000, 0, 11), turn_record(0, 400, 1000, 0, 11),
                                              turn_record(600, 50, 1300, 1000, 11),
                                              turn_record(630, 50, 1300, 1000, 11)};
  std::vector<SessionRequestView> views = {{1, &records[0], 0}, {1, &records[1], 0},
                                           {2, &records[2], 600 * kNsPerMs}, {2, &records[3], 600 * kNsPerMs}};
  const SessionsResult s = summarize_sessions(views, true);
  EXPECT_EQ(s.requests, 4);
  EXPECT_EQ(s.failed, 0);
  ASSERT_EQ(s.by_turn.size(), 2u);
  EXPECT_DOUBLE_EQ(*s.by_turn[0].prompt_tokens_mean, 1000.0);
  EXPECT_DOUBLE_EQ(*s.by_turn[0].cached_share, 0.0);
  EXPECT_DOUBLE_EQ(*s.by_turn[1].cached_share, 1000.0 / 1300.0);
  EXPECT_DOUBLE_EQ(*s.by_turn[0].ttft_p50_ms, 400.0);
  EXPECT_DOUBLE_EQ(*s.by_turn[1].ttft_p50_ms, 50.0);
  EXPECT_NEAR(*s.by_turn[1].decode_tok_s_p50, 100.0, 1e-9);
  EXPECT_DOUBLE_EQ(*s.cache_hit_rate, 2000.0 / 4600.0);
  EXPECT_EQ(s.cached_requests, 2);
  EXPECT_EQ(s.cold_requests, 2);
  EXPECT_DOUBLE_EQ(*s.ttft_cached_p50_ms, 50.0);
  EXPECT_DOUBLE_EQ(*s.ttft_cold_p50_ms, 400.0);
  EXPECT_DOUBLE_EQ(s.elapsed_s, 0.78);  // 0 → 630 + 50 + 100 ms
  EXPECT_NEAR(*s.output_tok_s, 44 / 0.78, 1e-9);
  EXPECT_NEAR(*s.send_late_p90_ms, 21.0, 1e-9);  // 0, 0, 0, 30 → p90 by interpolation
  // No server count: no cache figures, the rest stands; generated sessions have no lateness.
  std::vector<RequestRecord> unsaid = records;
  for (auto& r : unsaid) r.cached_prompt_tokens = -1;
  std::vector<SessionRequestView> unsaid_views = {{1, &unsaid[0], 0}, {2, &unsaid[2], 0}};
  const SessionsResult u = summarize_sessions(unsaid_views, false);
  EXPECT_FALSE(u.cache_hit_rate.has_value());
  EXPECT_FALSE(u.by_turn[1].cached_share.has_value());
  EXPECT_FALSE(u.send_late_p90_ms.has_value());
  EXPECT_DOUBLE_EQ(*u.by_turn[1].prompt_tokens_mean, 1300.0);
}

// A scripted server with a prefix cache of its own: a prompt's cached tokens are the words it
// shares from the start with the longest prompt seen before (one token per word).
struct PrefixCachingServer {
  std::mutex mu;
  std::vector<std::vector<std::string>> seen;

  static std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  }

  test::StreamScript script(const test::RequestInfo& info) {
    test::StreamScript s;
    s.ttft_ns = 10 * kNsPerMs;
    s.token_interval_ns = 2 * kNsPerMs;
    if (info.path != "/v1/completions") return s;
    const std::vector<std::string> prompt = words(prompt_of(info));
    std::lock_guard lock(mu);
    size_t best = 0;
    for (const auto& p : seen) {
      size_t n = 0;
      while (n < p.size() && n < prompt.size() && p[n] == prompt[n]) ++n;
      best = std::max(best, n);
    }
    seen.push_back(prompt);
    s.cached_prompt_tokens = static_cast<int64_t>(best);
    return s;
  }
};

// S sessions of T turns with fixed lengths: the opening, each turn's text and each answer.
SessionsSpec fixed_sessions(int64_t sessions, int64_t turns, int64_t first, int64_t user, int64_t answer) {
  SessionsSpec spec;
  spec.shape.sessions = sessions;
  spec.shape.turns = turns;
  spec.shape.first = {first, first};
  spec.shape.user = {user, user};
  spec.shape.answer = {answer, answer};
  return spec;
}

RunConfig sessions_only(const test::ScriptedServer& server, const test::TempDir& dir) {
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {};
  c.contexts_given = true;
  c.matrix.concurrency = {1};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 32;
  c.matrix.duration_s = 0.3;
  c.out_dir = dir.file("run");
  c.quiet = true;
  c.client_selftest = false;
  c.json_output = true;
  return c;
}

TEST(SessionsRun, GeneratedSessionsGrowTheirContextAndTheCacheHoldsThem) {
  PrefixCachingServer cache;
  test::ScriptedServerOptions opts;
  opts.max_model_len = 8192;
  opts.script = [&cache](const test::RequestInfo& info) { return cache.script(info); };
  test::ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = sessions_only(server, dir);
  SessionsSpec spec = fixed_sessions(2, 3, 200, 40, 8);
  c.sessions = spec;
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  ASSERT_TRUE(result->settings.sessions.has_value());
  EXPECT_EQ(result->settings.sessions->source, "generated");
  EXPECT_EQ(result->settings.sessions->first_tokens, "200");
  ASSERT_TRUE(result->sessions.has_value());
  const SessionsResult& s = *result->sessions;
  ASSERT_EQ(s.status, CellStatus::Valid) << s.error;
  EXPECT_EQ(s.requests, 6);
  EXPECT_EQ(s.failed, 0);
  ASSERT_EQ(s.by_turn.size(), 3u);
  // Turn 1: the opening and the turn's text, exactly (the server counts one token per word);
  // nothing cached (every text has a head of its own). Later turns: the conversation so far, 8
  // answer tokens and 40 more each time, all but the new text from the cache.
  EXPECT_NEAR(*s.by_turn[0].prompt_tokens_mean, 240.0, 2.0);
  EXPECT_LT(*s.by_turn[0].cached_share, 0.05);
  for (size_t t = 1; t < 3; ++t) {
    EXPECT_NEAR(*s.by_turn[t].prompt_tokens_mean - *s.by_turn[t - 1].prompt_tokens_mean, 48.0, 2.0) << t;
    EXPECT_GT(*s.by_turn[t].cached_share, 0.75) << t;
    EXPECT_EQ(s.by_turn[t].requests, 2);
  }
  EXPECT_EQ(s.cached_requests, 4);
  EXPECT_EQ(s.cold_requests, 2);
  EXPECT_FALSE(s.send_late_p90_ms.has_value());
  // Every turn in requests.jsonl with its session and turn, without --save-requests.
  std::ifstream lines(dir.file("run/requests.jsonl"));
  std::set<std::pair<int, int>> turns;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["purpose"] != "session") continue;
    turns.insert({j["session"].get<int>(), j["turn"].get<int>()});
    EXPECT_FALSE(j["cached_prompt_tokens"].is_null());
  }
  EXPECT_EQ(turns.size(), 6u);
  EXPECT_TRUE(turns.contains({2, 3}));
  // The file follows the schema; every report has the section.
  EXPECT_TRUE(test::follows_result_schema(dir.file("run/result.json")));
  const std::string md = render_report(*result, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("## Sessions"), std::string::npos);
  EXPECT_NE(md.find("2 sessions of 3 turns side by side"), std::string::npos);
  EXPECT_NE(md.find("from its prefix cache"), std::string::npos);
  const std::string html = render_report(*result, ReportFormat::Html, {});
  EXPECT_NE(html.find("id=\"sessions-table\""), std::string::npos);
  const std::string term = render_report(*result, ReportFormat::Term, {});
  EXPECT_NE(term.find("turn 3:"), std::string::npos);
}

TEST(SessionsRun, OnTheChatApiTurnsAreRoleTaggedMessages) {
  test::ScriptedServer server;
  test::TempDir dir;
  RunConfig c = sessions_only(server, dir);
  c.target.api = ApiKind::Chat;
  SessionsSpec spec = fixed_sessions(1, 3, 30, 10, 4);
  c.sessions = spec;
  ASSERT_EQ(run_matrix(c), 0);
  server.stop();
  // The third turn: user (opening + text), assistant, user, assistant, user; each assistant
  // message is the answer that streamed back.
  std::vector<nlohmann::json> turns;
  for (const auto& r : server.all_requests()) {
    if (r.path != "/v1/chat/completions") continue;
    const auto body = nlohmann::json::parse(r.body);
    if (body["messages"][0]["content"].get<std::string>().find("speedmatrix session opening") != std::string::npos)
      turns.push_back(body["messages"]);
  }
  ASSERT_EQ(turns.size(), 3u);
  EXPECT_EQ(turns[0].size(), 1u);
  EXPECT_EQ(turns[1].size(), 3u);
  ASSERT_EQ(turns[2].size(), 5u);
  for (size_t m = 0; m < 5; ++m) EXPECT_EQ(turns[2][m]["role"], m % 2 == 0 ? "user" : "assistant") << m;
  EXPECT_EQ(turns[2][0], turns[1][0]);  // the conversation is resent as it was
  EXPECT_EQ(turns[2][1], turns[1][1]);
  EXPECT_FALSE(turns[2][3]["content"].get<std::string>().empty());  // turn 2's answer, as streamed
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->sessions->status, CellStatus::Valid) << result->sessions->error;
  EXPECT_EQ(result->sessions->requests, 3);
}

TEST(SessionsRun, TheSimulatedEngineServesSessionsFromItsPrefixCache) {
  test::TempDir dir;
  RunConfig c;
  c.embedded_sim = true;
  c.matrix.contexts = {};
  c.contexts_given = true;
  c.matrix.concurrency = {1};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 32;
  c.out_dir = dir.file("run");
  c.quiet = true;
  c.client_selftest = false;
  c.telemetry = false;
  c.json_output = true;
  SessionsSpec spec = fixed_sessions(2, 3, 1024, 64, 16);
  c.sessions = spec;
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  const SessionsResult& s = *result->sessions;
  ASSERT_EQ(s.status, CellStatus::Valid) << s.error;
  ASSERT_EQ(s.by_turn.size(), 3u);
  // usage.prompt_tokens_details.cached_tokens, as vLLM sends it: nothing of turn 1 (its blocks
  // are new), most of every later turn (the earlier conversation's full blocks).
  EXPECT_LT(*s.by_turn[0].cached_share, 0.05);
  EXPECT_GT(*s.by_turn[1].cached_share, 0.8);
  EXPECT_GT(*s.by_turn[2].cached_share, 0.8);
  EXPECT_LT(*s.ttft_cached_p50_ms, *s.ttft_cold_p50_ms) << "a cached turn prefills only its new tokens";
}

TEST(SessionsRun, ATraceIsReplayedAtItsTimesAndSaysHowLateTurnsWent) {
  test::ScriptedServerOptions opts;
  opts.script = [](const test::RequestInfo&) {
    test::StreamScript s;
    s.ttft_ns = 60 * kNsPerMs;
    s.token_interval_ns = 2 * kNsPerMs;
    return s;
  };
  test::ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = sessions_only(server, dir);
  SessionsSpec spec;
  // Session "a"'s second turn is due 10 ms after its first was sent: it must wait for the answer
  // (at least 60 ms). Session "b" opens 100 ms in, at twice the speed 50 ms.
  spec.trace_name = "dir/my-trace.jsonl";
  spec.trace_content =
      R"({"session": "a", "timestamp_s": 0, "input_tokens": 30, "output_tokens": 5, "prefix": "sys", "prefix_tokens": 50})"
      "\n"
      R"({"session": "a", "timestamp_s": 0.02, "input_tokens": 10, "output_tokens": 5})"
      "\n"
      R"({"session": "b", "timestamp_s": 0.1, "input_tokens": 20, "output_tokens": 5, "prefix": "sys"})"
      "\n";
  spec.trace_speed = 2;
  c.sessions = spec;
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  const SessionsSettings& set = *result->settings.sessions;
  EXPECT_EQ(set.source, "trace");
  EXPECT_EQ(set.trace_file, "my-trace.jsonl");  // the name, not the folder
  EXPECT_EQ(set.trace_requests, 3);
  EXPECT_EQ(set.sessions, 2);
  EXPECT_EQ(set.trace_speed, 2);
  const SessionsResult& s = *result->sessions;
  ASSERT_EQ(s.status, CellStatus::Valid) << s.error;
  EXPECT_EQ(s.requests, 3);
  ASSERT_TRUE(s.send_late_p90_ms.has_value());
  EXPECT_GT(*s.send_late_p90_ms, 30.0);  // a's turn 2: due at 10 ms, its answer came after 60
  // Both sessions opened with the same shared text.
  server.stop();
  std::vector<std::string> openings;
  for (const auto& r : server.all_requests())
    if (r.path == "/v1/completions" && !prompt_of(r).empty()) openings.push_back(prompt_of(r).substr(0, 60));
  std::sort(openings.begin(), openings.end());
  ASSERT_GE(openings.size(), 3u);
  EXPECT_EQ(std::count(openings.begin(), openings.end(), openings[0]) + std::count(openings.begin(), openings.end(), openings.back()), 4)
      << "three prompts open with the shared text";
  EXPECT_NE(render_report(*result, ReportFormat::Markdown, {}).find("The trace my-trace.jsonl replayed at 2×"),
            std::string::npos);
}

TEST(SessionsRun, AResumedTraceMustBeTheSameFile) {
  SessionsSpec spec;
  spec.trace_name = "t.jsonl";
  spec.trace_content = "{\"session\": 1, \"input_tokens\": 5, \"output_tokens\": 5}\n";
  RunSettings s;
  apply_sessions_settings(s, spec, 7);
  ASSERT_TRUE(s.sessions.has_value());
  EXPECT_TRUE(sessions_plan(*s.sessions, spec).has_value());
  auto missing = sessions_plan(*s.sessions, std::nullopt);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "the run replays the trace t.jsonl: give --trace t.jsonl again");
  SessionsSpec other = spec;
  other.trace_content += "{\"session\": 2, \"input_tokens\": 5, \"output_tokens\": 5}\n";
  auto changed = sessions_plan(*s.sessions, other);
  ASSERT_FALSE(changed.has_value());
  EXPECT_NE(changed.error().message.find("not the trace the run started with"), std::string::npos);
  // Generated sessions come back the same from their settings.
  SessionsSpec generated;
  generated.shape.user = {10, 90};
  RunSettings g;
  apply_sessions_settings(g, generated, 99);
  auto again = sessions_plan(*g.sessions, std::nullopt);
  ASSERT_TRUE(again.has_value());
  const SessionPlan direct = generate_sessions(generated.shape, 99);
  ASSERT_EQ(again->turns.size(), direct.turns.size());
  for (size_t i = 0; i < direct.turns.size(); ++i) EXPECT_EQ(again->turns[i].input_tokens, direct.turns[i].input_tokens);
}

TEST(SessionsRun, ASessionBeyondTheModelSendsNothing) {
  test::ScriptedServerOptions opts;
  opts.max_model_len = 1024;
  test::ScriptedServer server(opts);
  test::TempDir dir;
  RunConfig c = sessions_only(server, dir);
  SessionsSpec spec;
  spec.shape.sessions = 1;
  spec.shape.turns = 10;  // 1K + 10 × (256 + 128) tokens
  c.sessions = spec;
  EXPECT_EQ(run_matrix(c), kExitNothingMeasured);  // the workload was all the run had
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->sessions->status, CellStatus::BeyondModel);
  EXPECT_NE(result->sessions->error.find("beyond the model's 1,024"), std::string::npos) << result->sessions->error;
  server.stop();
  for (const auto& r : server.all_requests()) EXPECT_EQ(prompt_of(r).find("speedmatrix session"), std::string::npos);
}

TEST(SessionsFlags, AreCheckedBeforeAnythingIsContacted) {
  const auto error = [](const cli::SessionFlags& f, std::vector<std::string> given = {}) {
    auto spec = cli::session_spec_from_flags(f, given);
    return spec ? std::string("accepted") : spec.error().message;
  };
  cli::SessionFlags none;
  auto nothing = cli::session_spec_from_flags(none, {});
  ASSERT_TRUE(nothing.has_value());
  EXPECT_FALSE(nothing->has_value());
  cli::SessionFlags f;
  f.sessions = "3x5";
  f.lengths = "first=2K,user=100-200";
  auto spec = cli::session_spec_from_flags(f, {"--sessions", "--session-lengths"});
  ASSERT_TRUE(spec.has_value() && spec->has_value());
  EXPECT_EQ((*spec)->shape.sessions, 3);
  EXPECT_EQ((*spec)->shape.turns, 5);
  EXPECT_EQ((*spec)->shape.first.lo, 2048);
  EXPECT_EQ((*spec)->shape.user.hi, 200);
  EXPECT_EQ((*spec)->shape.answer.lo, 128);
  cli::SessionFlags bad = f;
  bad.sessions = "3";
  EXPECT_EQ(error(bad), "--sessions: \"3\": SESSIONSxTURNS, e.g. 4x6 (4 sessions of 6 turns)");
  bad = f;
  bad.lengths = "user=9-3";
  EXPECT_NE(error(bad).find("--session-lengths: user:"), std::string::npos) << error(bad);
  cli::SessionFlags lengths_alone;
  lengths_alone.lengths = "user=10";
  EXPECT_NE(error(lengths_alone).find("--session-lengths is for --sessions"), std::string::npos);
  cli::SessionFlags speed_alone;
  speed_alone.trace_speed = 2;
  EXPECT_EQ(error(speed_alone, {"--trace-speed"}), "--trace-speed is for --trace FILE");
  test::TempDir dir;
  cli::SessionFlags missing;
  missing.trace = dir.file("none.jsonl");
  EXPECT_NE(error(missing).find("cannot read the file"), std::string::npos);
  {
    std::ofstream out(dir.file("bad.jsonl"));
    out << "{\"session\": 1, \"input_tokens\": 5, \"output_tokens\": 5}\n{\"session\": 1}\n";
  }
  cli::SessionFlags broken;
  broken.trace = dir.file("bad.jsonl");
  EXPECT_NE(error(broken).find("trace line 2: \"input_tokens\""), std::string::npos) << error(broken);
  cli::SessionFlags both = f;
  both.trace = dir.file("bad.jsonl");
  EXPECT_EQ(error(both), "--trace replays its own sessions; it cannot go with --sessions");
  {
    std::ofstream out(dir.file("good.jsonl"));
    out << "{\"session\": 1, \"input_tokens\": 5, \"output_tokens\": 5}\n";
  }
  cli::SessionFlags good;
  good.trace = dir.file("good.jsonl");
  good.trace_speed = 3;
  auto trace = cli::session_spec_from_flags(good, {"--trace", "--trace-speed"});
  ASSERT_TRUE(trace.has_value() && trace->has_value());
  EXPECT_EQ((*trace)->trace_speed, 3);
  EXPECT_FALSE((*trace)->trace_content.empty());
}

}  // namespace
}  // namespace sm
