#include "bench/slo_search.h"

#include <gtest/gtest.h>

#include <map>

#include "bench/resume.h"

namespace sm {
namespace {

// A probe that answers from a table and records what it was asked.
struct ScriptedProbe {
  std::map<int64_t, bool> verdicts;
  std::vector<int64_t> asked;
  SloProbeFn fn() {
    return [this](int64_t c) -> std::optional<bool> {
      asked.push_back(c);
      auto it = verdicts.find(c);
      if (it == verdicts.end()) return std::nullopt;
      return it->second;
    };
  }
};

// Monotone: every concurrency up to `last` passes.
ScriptedProbe passing_up_to(int64_t last, int64_t max) {
  ScriptedProbe p;
  for (int64_t c = 1; c <= max; ++c) p.verdicts[c] = c <= last;
  return p;
}

TEST(SloBisection, BisectsBetweenTheMatrixsPassingAndFailingCells) {
  ScriptedProbe probe = passing_up_to(11, 32);
  const SloBisection b =
      bisect_slo_concurrency({{1, true}, {4, true}, {8, true}, {16, false}, {32, false}}, 32, 6, probe.fn());
  EXPECT_EQ(b.basis, "found");
  EXPECT_EQ(b.concurrency, 11);
  EXPECT_EQ(b.failing_concurrency, 12);
  EXPECT_EQ(probe.asked, (std::vector<int64_t>{12, 10, 11}));  // (8, 16) → 12 fails, 10 passes, 11 passes
  EXPECT_EQ(b.probes, 3);
  EXPECT_FALSE(b.passed_above);
}

TEST(SloBisection, AdjacentMatrixCellsNeedNoProbe) {
  ScriptedProbe probe;
  const SloBisection b = bisect_slo_concurrency({{1, true}, {2, true}, {3, false}}, 3, 6, probe.fn());
  EXPECT_EQ(b.basis, "found");
  EXPECT_EQ(b.concurrency, 2);
  EXPECT_EQ(b.failing_concurrency, 3);
  EXPECT_TRUE(probe.asked.empty());
}

TEST(SloBisection, EveryConcurrencyAllowedPassing) {
  ScriptedProbe probe;
  const SloBisection b = bisect_slo_concurrency({{1, true}, {8, true}, {64, true}}, 64, 6, probe.fn());
  EXPECT_EQ(b.basis, "at_least");
  EXPECT_EQ(b.concurrency, 64);
  EXPECT_TRUE(probe.asked.empty());
  EXPECT_FALSE(b.failing_concurrency);
}

TEST(SloBisection, WithoutAFailingCellTheHighestAllowedIsProbedFirst) {
  // The matrix stopped at 8, the KV cache allows 12: 12 is probed, fails, and 9..11 are bisected.
  ScriptedProbe probe = passing_up_to(10, 12);
  const SloBisection b = bisect_slo_concurrency({{1, true}, {8, true}}, 12, 6, probe.fn());
  EXPECT_EQ(probe.asked, (std::vector<int64_t>{12, 10, 11}));
  EXPECT_EQ(b.basis, "found");
  EXPECT_EQ(b.concurrency, 10);
  EXPECT_EQ(b.failing_concurrency, 11);
}

TEST(SloBisection, NoneWhenOneRequestAlreadyFails) {
  ScriptedProbe probe;
  const SloBisection b = bisect_slo_concurrency({{1, false}, {4, false}}, 4, 6, probe.fn());
  EXPECT_EQ(b.basis, "none");
  EXPECT_EQ(b.concurrency, 0);
  EXPECT_EQ(b.failing_concurrency, 1);
  EXPECT_TRUE(probe.asked.empty());
  // The matrix started at 4: one request is probed, and fails too.
  ScriptedProbe low = passing_up_to(0, 4);
  const SloBisection c = bisect_slo_concurrency({{4, false}}, 4, 6, low.fn());
  EXPECT_EQ(low.asked, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(c.basis, "none");
}

TEST(SloBisection, ANoisyPassAboveAFailureIsReportedNotBelieved) {
  // 4 fails, 8 passes: the bracket is (2, 4), 8 is noise (passed_above), 3 decides.
  ScriptedProbe probe;
  probe.verdicts[3] = true;
  const SloBisection b = bisect_slo_concurrency({{1, true}, {2, true}, {4, false}, {8, true}}, 8, 6, probe.fn());
  EXPECT_EQ(probe.asked, (std::vector<int64_t>{3}));
  EXPECT_EQ(b.basis, "found");
  EXPECT_EQ(b.concurrency, 3);
  EXPECT_EQ(b.failing_concurrency, 4);
  EXPECT_EQ(b.passed_above, 8);
}

TEST(SloBisection, ANoisyProbeEndsAtABoundaryOfItsOwnPath) {
  // Not monotone: 25 to 27 pass though 24 fails. Bisection stays inside its bracket and ends with a
  // pass next to a fail.
  ScriptedProbe probe;
  for (int64_t c = 17; c < 32; ++c) probe.verdicts[c] = c != 24 && c < 28;  // 24 fails, 25-27 pass
  const SloBisection b = bisect_slo_concurrency({{16, true}, {32, false}}, 32, 6, probe.fn());
  EXPECT_EQ(b.basis, "found");
  EXPECT_EQ(probe.verdicts.at(b.concurrency), true);
  EXPECT_FALSE(probe.verdicts.at(*b.failing_concurrency));
  EXPECT_EQ(*b.failing_concurrency, b.concurrency + 1);
}

TEST(SloBisection, TheProbeLimitLeavesTheBracket) {
  ScriptedProbe probe = passing_up_to(70, 128);
  const SloBisection b = bisect_slo_concurrency({{1, true}, {128, false}}, 128, 2, probe.fn());
  EXPECT_EQ(probe.asked, (std::vector<int64_t>{64, 96}));
  EXPECT_EQ(b.basis, "probe_limit");
  EXPECT_EQ(b.concurrency, 64);
  EXPECT_EQ(b.failing_concurrency, 96);
}

TEST(SloBisection, AFailedProbeStopsTheSearch) {
  ScriptedProbe probe;  // no verdicts: every probe fails
  const SloBisection b = bisect_slo_concurrency({{1, true}, {16, false}}, 16, 6, probe.fn());
  EXPECT_EQ(b.basis, "stopped");
  EXPECT_EQ(b.concurrency, 1);
  EXPECT_EQ(b.failing_concurrency, 16);
  EXPECT_EQ(b.probes, 1);
}

TEST(SloSpecParse, TargetsContextsPercentileAndProbes) {
  auto spec = parse_slo_spec("ttft=2s,tpot=50ms,context=32K,context=4K,p=95,probes=3");
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  EXPECT_EQ(spec->targets.ttft_ms, 2000.0);
  EXPECT_EQ(spec->targets.tpot_ms, 50.0);
  EXPECT_EQ(spec->targets.percentile, 95.0);
  EXPECT_EQ(spec->contexts, (std::vector<int64_t>{4096, 32768}));
  EXPECT_EQ(spec->max_probes, 3);
  auto bare = parse_slo_spec("tpot=40");
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->targets.tpot_ms, 40.0);
  EXPECT_FALSE(bare->targets.ttft_ms);
  EXPECT_EQ(bare->targets.percentile, kDefaultSloPercentile);
  EXPECT_EQ(bare->max_probes, kDefaultSloMaxProbes);
  EXPECT_EQ(parse_slo_spec("p=p99,ttft=1.5s")->targets.percentile, 99.0);
}

TEST(SloSpecParse, BadInputSaysWhatIsWrong) {
  for (const char* bad : {"", "p=90", "ttft=fast", "ttft=-1s", "ttft=1s,ttft=2s", "tpot=5ms,p=0", "tpot=5ms,p=101",
                          "tpot=5ms,depth=3", "tpot", "tpot=5ms,context=lots", "tpot=5ms,probes=-1"}) {
    auto spec = parse_slo_spec(bad);
    EXPECT_FALSE(spec.has_value()) << bad;
    if (!spec) {
      EXPECT_FALSE(spec.error().message.empty());
    }
  }
  EXPECT_NE(parse_slo_spec("ttft=soon").error().message.find("ttft=soon"), std::string::npos);
  EXPECT_NE(parse_slo_spec("p=90").error().message.find("give a target"), std::string::npos);
}

DecodeCell cell(int64_t context, int64_t concurrency, CellStatus status, std::optional<bool> meets = std::nullopt) {
  DecodeCell c;
  c.context = context;
  c.concurrency = concurrency;
  c.status = status;
  if (meets) {
    SloJudgement j;
    j.meets = *meets;
    j.requests = 10;
    j.met = *meets ? 10 : 0;
    c.slo = j;
  }
  return c;
}

RunResult searched_run() {
  RunResult r;
  r.settings.max_output_tokens = 1024;
  r.engine.kv_capacity_tokens = 10 * (4096 + 1024);  // 10 streams of 4K
  SloTargets t;
  t.tpot_ms = 50;
  r.settings.slo = t;
  r.settings.slo_max_probes = 6;
  r.decode = {cell(1024, 1, CellStatus::Valid, true),  cell(1024, 4, CellStatus::Valid, true),
              cell(1024, 16, CellStatus::Valid, false), cell(4096, 1, CellStatus::Valid, true),
              cell(4096, 8, CellStatus::Valid, true),   cell(4096, 16, CellStatus::OverCapacity),
              cell(65536, 1, CellStatus::BeyondModel)};
  return r;
}

TEST(SloSearchStage, TheHighestConcurrencyTriedFitsTheKvCache) {
  const RunResult r = searched_run();
  EXPECT_EQ(slo_max_concurrency(r, 1024), 16);
  EXPECT_EQ(slo_max_concurrency(r, 4096), 10);  // 16 does not fit; 10 × (4K + 1K) does
  EXPECT_EQ(slo_max_concurrency(r, 65536), 0);
  EXPECT_EQ(slo_contexts_owed(r), (std::vector<int64_t>{1024, 4096}));
  RunResult only = r;
  only.settings.slo_contexts = {4096};
  EXPECT_EQ(slo_contexts_owed(only), (std::vector<int64_t>{4096}));
  RunResult none = r;
  none.settings.slo.reset();
  EXPECT_TRUE(slo_contexts_owed(none).empty());
}

SloPoint probe_point(bool meets) {
  SloPoint p;
  SloJudgement j;
  j.meets = meets;
  j.requests = 8;
  j.met = meets ? 8 : 2;
  j.tpot_ms = meets ? 40.0 : 60.0;
  p.judgement = j;
  return p;
}

TEST(SloSearchStage, SearchesEachContextAndRecordsMatrixCellsAndProbes) {
  RunResult r = searched_run();
  std::vector<std::pair<int64_t, int64_t>> asked;
  int searched = 0;
  SloSearchHooks hooks;
  hooks.probe = [&](int64_t context, int64_t c) {
    asked.emplace_back(context, c);
    return probe_point(context == 1024 ? c <= 6 : c <= 10);
  };
  hooks.on_searched = [&](const SloSearch&) { ++searched; };
  ASSERT_TRUE(run_slo_searches(r, hooks));
  EXPECT_EQ(searched, 2);
  ASSERT_EQ(r.slo_search.size(), 2u);
  const SloSearch& small = r.slo_search[0];
  EXPECT_EQ(small.context, 1024);
  EXPECT_EQ(small.basis, "found");
  EXPECT_EQ(small.concurrency, 6);
  EXPECT_EQ(small.failing_concurrency, 7);
  EXPECT_EQ(small.max_concurrency, 16);
  ASSERT_GE(small.points.size(), 3u);
  EXPECT_EQ(small.points[0].source, "matrix");
  EXPECT_EQ(small.points.back().source, "probe");
  EXPECT_EQ(small.probes, static_cast<int64_t>(small.points.size()) - 3);
  const SloPoint* at = slo_answer_point(small);
  ASSERT_NE(at, nullptr);
  EXPECT_EQ(at->concurrency, 6);
  EXPECT_EQ(at->judgement->tpot_ms, 40.0);
  const SloSearch& large = r.slo_search[1];
  EXPECT_EQ(large.basis, "at_least");  // 10, the most the KV cache holds, passes
  EXPECT_EQ(large.concurrency, 10);
  EXPECT_EQ(large.probes, 1);
  EXPECT_EQ(asked.back(), (std::pair<int64_t, int64_t>{4096, 10}));
  // Nothing left: a resume searches nothing more.
  EXPECT_TRUE(slo_contexts_owed(r).empty());
  EXPECT_EQ(resume_work(r, false).checks_owed, 0);
}

TEST(SloSearchStage, AnInterruptedSearchIsNotRecordedAndIsOwedOnResume) {
  RunResult r = searched_run();
  SloSearchHooks hooks;
  hooks.probe = [&](int64_t, int64_t) {
    SloPoint p;
    p.status = CellStatus::Interrupted;
    return p;
  };
  EXPECT_FALSE(run_slo_searches(r, hooks));
  EXPECT_TRUE(r.slo_search.empty());
  EXPECT_EQ(resume_work(r, false).checks_owed, 2);
  EXPECT_FALSE(resume_work(r, false).nothing_to_do());
}

TEST(SloSearchStage, AFailedProbeStopsThatContextOnly) {
  RunResult r = searched_run();
  SloSearchHooks hooks;
  hooks.probe = [&](int64_t context, int64_t c) {
    if (context == 1024) {
      SloPoint p;
      p.status = CellStatus::Error;
      p.error = "2 of 5 requests failed";
      return p;
    }
    return probe_point(c <= 10);
  };
  ASSERT_TRUE(run_slo_searches(r, hooks));
  ASSERT_EQ(r.slo_search.size(), 2u);
  EXPECT_EQ(r.slo_search[0].basis, "stopped");
  EXPECT_EQ(r.slo_search[0].concurrency, 4);
  EXPECT_EQ(r.slo_search[0].points.back().error, "2 of 5 requests failed");
  EXPECT_EQ(r.slo_search[1].basis, "at_least");
  EXPECT_NE(slo_search_summary(r.slo_search[0]).find("a probe failed"), std::string::npos);
}

}  // namespace
}  // namespace sm
