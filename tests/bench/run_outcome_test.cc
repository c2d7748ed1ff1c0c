// Exit codes a script can trust, resumed runs that say what they did, profiles that stay what
// they say, and --repeat's passes.
#include "bench/run_outcome.h"

#include <gtest/gtest.h>

#include "bench/busy_host.h"
#include "bench/profile_check.h"
#include "bench/repeat_passes.h"
#include "bench/resume.h"
#include "bench/run_config.h"

namespace sm {
namespace {

DecodeCell cell(int64_t context, int64_t concurrency, CellStatus status, std::optional<double> tok_s = {}) {
  DecodeCell c;
  c.context = context;
  c.concurrency = concurrency;
  c.status = status;
  c.total_tok_s = tok_s;
  return c;
}

TEST(RunOutcome, ZeroOnlyWhenEveryCellIsValidOverCapacityOrBeyondTheModel) {
  RunResult r;
  r.prefill.push_back({1024, CellStatus::Valid});
  r.decode = {cell(0, 1, CellStatus::Valid, 100), cell(0, 64, CellStatus::OverCapacity),
              cell(128 * kK, 1, CellStatus::BeyondModel)};
  EXPECT_EQ(exit_code_for(r), kExitOk);
  EXPECT_EQ(outcome_line(r), "");

  r.decode.push_back(cell(1024, 2, CellStatus::Error));
  r.decode.back().error = "connection reset";
  EXPECT_EQ(exit_code_for(r), kExitCellErrors);
  EXPECT_NE(outcome_line(r).find("1 of 5 rows and cells ended in error (first: connection reset)"), std::string::npos)
      << outcome_line(r);
  EXPECT_NE(outcome_line(r).find("--retry-failed"), std::string::npos);

  r.decode.back().status = CellStatus::Pending;  // never measured: the plan was not
  EXPECT_EQ(exit_code_for(r), kExitCellErrors);
}

TEST(RunOutcome, NothingMeasuredHasItsOwnCode) {
  RunResult r;
  EXPECT_EQ(exit_code_for(r), kExitNothingMeasured);
  EXPECT_NE(outcome_line(r).find("the plan has no row or cell"), std::string::npos);
  r.decode = {cell(0, 1, CellStatus::BeyondModel), cell(1024, 1, CellStatus::BeyondModel)};
  EXPECT_EQ(exit_code_for(r), kExitNothingMeasured);
  EXPECT_NE(outcome_line(r).find("all 2 rows and cells are beyond the model or over capacity"), std::string::npos);
  r.decode = {cell(0, 1, CellStatus::Error), cell(1024, 1, CellStatus::Error)};
  EXPECT_EQ(exit_code_for(r), kExitNothingMeasured);
  EXPECT_NE(outcome_line(r).find("nothing was measured: 2 of 2"), std::string::npos);
  EXPECT_NE(kExitCellErrors, kExitNothingMeasured);
  EXPECT_NE(kExitCellErrors, kExitFailure);
}

TEST(ResumeWork, AFinishedRunOwesNothingUnlessErrorsAreRetriedOrPassesAreShort) {
  RunResult r;
  r.decode = {cell(0, 1, CellStatus::Valid, 100), cell(0, 2, CellStatus::Error), cell(0, 4, CellStatus::OverCapacity)};
  ResumeWork w = resume_work(r, false);
  EXPECT_TRUE(w.nothing_to_do());
  EXPECT_EQ(w.errors_left, 1);
  EXPECT_EQ(finished_run_message("runs/x", w),
            "--resume: the run in runs/x is finished: nothing left to measure (1 valid, 1 in error; --retry-failed "
            "measures it again)");
  w = resume_work(r, true);
  EXPECT_FALSE(w.nothing_to_do());
  EXPECT_EQ(w.to_measure, 1);

  r.settings.repeat = 3;
  r.decode[0].repeat_tok_s = {100, 101};
  w = resume_work(r, false);
  EXPECT_EQ(w.short_of_passes, 1);
  EXPECT_FALSE(w.nothing_to_do());
  EXPECT_EQ(passes_done(r.decode[0]), 2);
  EXPECT_EQ(passes_done(r.decode[1]), 0);
}

TEST(ProfileCheck, FlagsFillTheProfileAndOnlyADepartureDropsIt) {
  const Profile quick = *find_profile("quick");
  RunConfig c;
  EXPECT_EQ(apply_profile(quick, {}, c), "");
  EXPECT_EQ(c.profile, "quick/1");
  EXPECT_EQ(c.matrix.contexts, quick.matrix.contexts);
  EXPECT_EQ(c.matrix.duration_s, 2);
  EXPECT_EQ(c.matrix.max_output_tokens, 1024);
  EXPECT_FALSE(c.fit_max_output);  // the profile's, never fitted

  // A flag given with the profile's own value changes nothing.
  RunConfig same;
  same.matrix.duration_s = 2;
  EXPECT_EQ(apply_profile(quick, {"--duration"}, same), "");
  EXPECT_EQ(same.profile, "quick/1");

  RunConfig longer;
  longer.matrix.duration_s = 10;
  longer.temperature = 0.7;
  const std::string note = apply_profile(quick, {"--duration"}, longer);
  EXPECT_EQ(longer.profile, "");
  EXPECT_EQ(longer.matrix.duration_s, 10);
  EXPECT_EQ(longer.matrix.concurrency, quick.matrix.concurrency);  // the rest is still the profile's
  EXPECT_EQ(note,
            "--duration, --temperature change a setting the quick profile fixes: this run follows no profile (its "
            "matrix is its own and is not ranked against quick/1 runs)");

  RunConfig adaptive;
  adaptive.matrix.precision = 0.02;
  apply_profile(*find_profile("standard"), {"--precision"}, adaptive);
  EXPECT_EQ(profile_departures(*find_profile("standard"), adaptive), (std::vector<std::string>{"--precision"}));
  EXPECT_EQ(adaptive.profile, "");
}

TEST(RepeatPasses, EveryPassIsKeptAndTheFiguresAreTheMedianPasss) {
  RepeatPasses passes(3);
  DecodeCell kept = cell(0, 1, CellStatus::Pending);
  DecodeCell a = cell(0, 1, CellStatus::Valid, 10);
  a.ttft_ms = 1;
  DecodeCell b = cell(0, 1, CellStatus::Valid, 30);
  b.ttft_ms = 3;
  DecodeCell m = cell(0, 1, CellStatus::Valid, 20);
  m.ttft_ms = 2;
  passes.fold(kept, a);
  EXPECT_EQ(kept.repeat_tok_s, (std::vector<double>{10}));
  passes.fold(kept, b);
  passes.fold(kept, m);
  EXPECT_EQ(kept.status, CellStatus::Valid);
  EXPECT_EQ(kept.repeat_tok_s, (std::vector<double>{10, 30, 20}));
  EXPECT_EQ(*kept.total_tok_s, 20);
  EXPECT_EQ(*kept.ttft_ms, 2);  // the median pass's own figures, not a mix

  // A later pass that fails makes the cell an error, naming the pass; an interrupted one changes nothing.
  DecodeCell again = kept;
  DecodeCell interrupted = cell(0, 1, CellStatus::Interrupted);
  RepeatPasses more(4);
  more.fold(again, interrupted);
  EXPECT_EQ(again.status, CellStatus::Valid);
  EXPECT_EQ(again.repeat_tok_s.size(), 3u);
  DecodeCell failed = cell(0, 1, CellStatus::Error);
  failed.error = "connection reset";
  more.fold(again, failed);
  EXPECT_EQ(again.status, CellStatus::Error);
  EXPECT_EQ(again.error, "pass 4 of 4: connection reset");

  // One pass: the record is the measurement, with no repeat figures.
  RepeatPasses once(1);
  DecodeCell single = cell(0, 1, CellStatus::Pending);
  once.fold(single, a);
  EXPECT_TRUE(single.repeat_tok_s.empty());
  EXPECT_EQ(*single.total_tok_s, 10);

  PrefillRow row{1024, CellStatus::Pending};
  PrefillRow p1{1024, CellStatus::Valid};
  p1.prompt_tok_s = 500;
  PrefillRow p2{1024, CellStatus::Valid};
  p2.prompt_tok_s = 400;
  RepeatPasses two(2);
  two.fold(row, p1);
  two.fold(row, p2);
  EXPECT_EQ(row.repeat_prompt_tok_s, (std::vector<double>{500, 400}));
  EXPECT_EQ(*row.prompt_tok_s, 400);  // the lower median of an even count
  EXPECT_EQ(lower_median({3, 1, 2, 4}), 2);
}

TEST(BusyHost, WindowsAboveTheThresholdAreNamedOnlyWhenTheServerSharesTheHost) {
  RunResult r;
  r.hardware.source = HardwareSource::Probed;
  r.prefill.push_back({1024, CellStatus::Valid});
  r.prefill[0].telemetry.host_cpu_other_pct = 40;
  r.decode = {cell(0, 1, CellStatus::Valid, 100), cell(0, 2, CellStatus::Valid, 190), cell(0, 4, CellStatus::Error)};
  r.decode[0].telemetry.host_cpu_other_pct = 3;
  r.decode[1].telemetry.host_cpu_other_pct = 55;
  r.decode[2].telemetry.host_cpu_other_pct = 80;  // an error cell shows no figure: not named
  const std::string w = busy_host_warning(r, 10);
  EXPECT_NE(w.find("during prefill 1K, 0 × 2;"), std::string::npos) << w;
  EXPECT_NE(w.find("(up to 55%)"), std::string::npos) << w;
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(w.find("0 × 1"), std::string::npos) << "3% is not busy";
  EXPECT_EQ(w.find("0 × 4"), std::string::npos) << "an error cell shows no figure";
  // Again (a resumed run): one warning, not two.
  busy_host_warning(r, 10);
  EXPECT_EQ(r.warnings.size(), 1u);

  // A server elsewhere does not compete with this machine's load.
  RunResult remote = r;
  remote.hardware.source = HardwareSource::Declared;
  EXPECT_EQ(busy_host_warning(remote, 10), "");
  EXPECT_TRUE(remote.warnings.empty());
}

}  // namespace
}  // namespace sm
