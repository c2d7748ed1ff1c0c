// ServerWatch with a fake server and a hand-driven clock: quiet period and note when the
// engine has no load metrics, SGLang aborts by id, the barrier's verdict, --drain-timeout 0.
#include "bench/server_watch.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

namespace sm {
namespace {

struct FakeEngine {
  ManualClock clock{0};
  std::map<std::string, HttpResponse> answers;  // path -> response (GET or POST)
  std::vector<HttpRequest> asked;
  std::vector<int64_t> sleeps_ns;
  std::vector<std::string> notes;

  ServerWatch watch(EngineKind kind, double drain_timeout_s = 60) {
    ServerWatchOptions o;
    o.kind = kind;
    o.base_url = "http://fake";
    o.transport = [this](const HttpRequest& req) -> Result<HttpResponse> {
      asked.push_back(req);
      const std::string path = req.url.substr(std::string("http://fake").size());
      if (auto it = answers.find(path); it != answers.end()) return it->second;
      return HttpResponse{404, "Not Found", "text/plain"};
    };
    o.drain_timeout_s = drain_timeout_s;
    return ServerWatch(
        o, clock,
        [this](int64_t ns) {
          sleeps_ns.push_back(ns);
          clock.advance_ns(ns);
        },
        [this](const std::string& n) { notes.push_back(n); });
  }
  int64_t asked_for(const std::string& path) const {
    int64_t n = 0;
    for (const auto& r : asked) n += r.url == "http://fake" + path;
    return n;
  }
};

RequestRecord record(RequestEnd end, std::string server_id) {
  RequestRecord r;
  r.end = end;
  r.server_id = std::move(server_id);
  return r;
}

LoopOutcome cut_window(std::vector<RequestRecord> records) {
  LoopOutcome out;
  out.records = std::move(records);
  out.window_opened = true;
  out.window = {kNsPerS, 2 * kNsPerS};
  return out;
}

TEST(ServerWatch, WithoutLoadMetricsAQuietPeriodFollowsCutStreamsAndTheResultSaysSoOnce) {
  FakeEngine e;
  ServerWatch w = e.watch(EngineKind::Ollama);
  Readiness r = w.before_measurement({});
  EXPECT_TRUE(r.busy.empty());
  EXPECT_TRUE(e.sleeps_ns.empty());  // nothing was cancelled yet
  DecodeCell cell;
  w.window_opening(30);
  w.window_closed(cut_window({record(RequestEnd::Cut, "x"), record(RequestEnd::Finished, "y")}), cell);
  EXPECT_FALSE(cell.server_running_mean.has_value());
  EXPECT_TRUE(w.before_measurement({}).busy.empty());
  ASSERT_EQ(e.sleeps_ns.size(), 1u);
  EXPECT_EQ(e.sleeps_ns[0], kNsPerS);
  EXPECT_TRUE(w.before_measurement({}).busy.empty());  // the quiet period is owed once per cut
  EXPECT_EQ(e.sleeps_ns.size(), 1u);
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_NE(e.notes[0].find("No idle check was possible"), std::string::npos);
  EXPECT_NE(e.notes[0].find("1 s quiet period"), std::string::npos);
  EXPECT_TRUE(e.asked.empty());  // Ollama has no load endpoint: nothing is asked
  EXPECT_FALSE(w.load_source().has_value());
}

TEST(ServerWatch, LlamaCppWithoutMetricsOrSlotsSaysHowToTurnThemOn) {
  FakeEngine e;
  ServerWatch w = e.watch(EngineKind::LlamaCpp);
  w.before_measurement({});
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_NE(e.notes[0].find("--metrics"), std::string::npos);
  EXPECT_EQ(e.asked_for("/metrics"), 1);
  EXPECT_EQ(e.asked_for("/slots"), 1);
}

TEST(ServerWatch, BusyServerMakesTheMeasurementAnError) {
  FakeEngine e;
  e.answers["/metrics"] = {200, "vllm:num_requests_running{engine=\"0\"} 2.0\nvllm:num_requests_waiting{engine=\"0\"} 0.0\n", ""};
  ServerWatch w = e.watch(EngineKind::Vllm, 2);
  Readiness r = w.before_measurement({});
  EXPECT_EQ(r.busy, "server still busy: 2 running, 0 waiting after 2 s");
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(w.load_source(), LoadSource::VllmMetrics);
  EXPECT_TRUE(e.notes.empty());
}

TEST(ServerWatch, DrainTimeoutZeroTurnsTheCheckOff) {
  FakeEngine e;
  e.answers["/metrics"] = {200, "vllm:num_requests_running 7\n", ""};
  ServerWatch w = e.watch(EngineKind::Vllm, 0);
  EXPECT_TRUE(w.before_measurement({}).busy.empty());
  EXPECT_EQ(e.asked_for("/metrics"), 1);  // the endpoint is still found (for the window's sampling)
  EXPECT_TRUE(e.sleeps_ns.empty());
}

TEST(ServerWatch, SglangCutRequestsAreAbortedByTheirIds) {
  FakeEngine e;
  e.answers["/metrics"] = {200, "sglang:num_running_reqs 0\nsglang:num_queue_reqs 0\n", ""};
  e.answers["/abort_request"] = {200, "", ""};
  ServerWatch w = e.watch(EngineKind::Sglang);
  ASSERT_TRUE(w.before_measurement({}).busy.empty());
  DecodeCell cell;
  w.window_opening(30);
  w.window_closed(cut_window({record(RequestEnd::Cut, "a1"), record(RequestEnd::Finished, "done"),
                              record(RequestEnd::Cut, ""),  // cut before its first chunk: no id to name
                              record(RequestEnd::Failed, "f"), record(RequestEnd::Cut, "b2")}),
                  cell);
  std::vector<std::string> rids;
  for (const auto& req : e.asked) {
    if (!req.url.ends_with("/abort_request")) continue;
    auto body = nlohmann::json::parse(req.body);
    rids.push_back(body.at("rid").get<std::string>());
  }
  EXPECT_EQ(rids, (std::vector<std::string>{"a1", "b2"}));
  EXPECT_TRUE(e.notes.empty());
}

TEST(ServerWatch, AFailingAbortIsNotedOnce) {
  FakeEngine e;
  e.answers["/metrics"] = {200, "sglang:num_running_reqs 0\n", ""};
  ServerWatch w = e.watch(EngineKind::Sglang);
  w.before_measurement({});
  DecodeCell cell;
  w.window_closed(cut_window({record(RequestEnd::Cut, "a"), record(RequestEnd::Cut, "b")}), cell);
  w.window_closed(cut_window({record(RequestEnd::Cut, "c")}), cell);
  EXPECT_EQ(e.asked_for("/abort_request"), 3);
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_NE(e.notes[0].find("HTTP 404"), std::string::npos);
}

TEST(ServerWatch, OtherEnginesAreNotAskedToAbort) {
  FakeEngine e;
  e.answers["/metrics"] = {200, "vllm:num_requests_running 0\n", ""};
  ServerWatch w = e.watch(EngineKind::Vllm);
  w.before_measurement({});
  DecodeCell cell;
  w.window_closed(cut_window({record(RequestEnd::Cut, "cmpl-1")}), cell);
  EXPECT_EQ(e.asked_for("/abort_request"), 0);
}

TEST(ServerWatch, InterruptWhileWaiting) {
  FakeEngine e;
  e.answers["/metrics"] = {200, "vllm:num_requests_running 3\n", ""};
  ServerWatch w = e.watch(EngineKind::Vllm);
  Readiness r = w.before_measurement([] { return true; });
  EXPECT_TRUE(r.interrupted);
  EXPECT_TRUE(r.busy.empty());
}

}  // namespace
}  // namespace sm
