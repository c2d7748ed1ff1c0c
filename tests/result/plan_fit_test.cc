// Defaults that fit the server in front of them: max output, contexts and prefill rows beyond
// the model, concurrency at the server's slots; a profile's cells are never changed.
#include "result/plan_fit.h"

#include <gtest/gtest.h>

#include "result/profile.h"

namespace sm {
namespace {

MatrixRequest defaults() {
  MatrixRequest r;
  r.matrix.concurrency = default_concurrency();
  r.matrix.prefill_contexts = default_prefill_contexts();
  r.matrix.contexts = default_contexts(std::nullopt, r.matrix.max_output_tokens);
  return r;
}

bool mentions(const std::vector<std::string>& notes, std::string_view text) {
  for (const auto& n : notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

TEST(FittedMaxOutput, HalvesUntilAQuarterOfTheModelAndTheLongestGivenContextFit) {
  EXPECT_EQ(fitted_max_output(std::nullopt, {}), 8192);
  EXPECT_EQ(fitted_max_output(262144, {}), 8192);
  EXPECT_EQ(fitted_max_output(32768, {}), 8192);
  EXPECT_EQ(fitted_max_output(16384, {}), 4096);
  EXPECT_EQ(fitted_max_output(4096, {}), 1024);
  EXPECT_EQ(fitted_max_output(4096, {0, 1024}), 1024);
  EXPECT_EQ(fitted_max_output(4096, {0, 3584}), 512);  // 3.5K + 512 = 4K exactly
  EXPECT_EQ(fitted_max_output(4096, {0, 4000}), 1024);  // 4000 cannot fit even 256: dropped, not fitted
  EXPECT_EQ(fitted_max_output(512, {}), 256);           // never below the floor
}

// The first case: a 4,096-token llama-server, --contexts 0,1K, no --max-output. Before,
// every cell was too long (8,192 output tokens) and nothing was measured.
TEST(FitMatrix, AFourKServerGetsAMaxOutputThatFitsTheGivenContexts) {
  MatrixRequest r = defaults();
  r.matrix.contexts = {0, 1024};
  r.contexts_given = true;
  r.matrix.concurrency = {1, 2};
  r.concurrency_given = true;
  const FittedMatrix f = fit_matrix(r, {{std::nullopt, 4096}, std::nullopt});
  EXPECT_EQ(f.matrix.max_output_tokens, 1024);
  EXPECT_EQ(f.matrix.contexts, (std::vector<int64_t>{0, 1024}));
  EXPECT_TRUE(mentions(f.notes, "max output 1,024 tokens, fitted to the server")) << f.notes.front();
  // Every prefill row of the defaults (8K and up) is beyond a 4K model: dropped with a note.
  EXPECT_TRUE(f.matrix.prefill_contexts.empty());
  EXPECT_TRUE(mentions(f.notes, "prefill rows 8K, 16K, 32K, 64K, 128K dropped"));
  const Plan plan = make_plan(f.matrix, {std::nullopt, 4096});
  for (const auto& c : plan.decode) EXPECT_EQ(c.status, CellStatus::Valid);
}

TEST(FitMatrix, DefaultContextsStopAtTheModelsLengthAndGivenOnesBeyondItAreDropped) {
  MatrixRequest r = defaults();
  FittedMatrix f = fit_matrix(r, {{std::nullopt, 40960}, std::nullopt});
  EXPECT_EQ(f.matrix.max_output_tokens, 8192);
  EXPECT_EQ(f.matrix.contexts, (std::vector<int64_t>{0, 16384, 32768}));  // 40,960 - 8,192 = 32K ends the list
  EXPECT_EQ(f.matrix.prefill_contexts, (std::vector<int64_t>{8192, 16384, 32768}));

  r.matrix.contexts = {0, 16384, 65536};
  r.contexts_given = true;
  r.matrix.max_output_tokens = 8192;
  r.max_output_given = true;
  f = fit_matrix(r, {{std::nullopt, 40960}, std::nullopt});
  EXPECT_EQ(f.matrix.contexts, (std::vector<int64_t>{0, 16384}));
  EXPECT_TRUE(mentions(f.notes, "contexts 64K dropped: beyond the model's 40,960-token length"));
  EXPECT_FALSE(mentions(f.notes, "max output"));  // given: never fitted
}

TEST(FitMatrix, DefaultConcurrencyStopsAtTheSlotsAndGivenConcurrencyAboveThemIsSaid) {
  MatrixRequest r = defaults();
  FittedMatrix f = fit_matrix(r, {{}, 4});
  EXPECT_EQ(f.matrix.concurrency, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_TRUE(mentions(f.notes, "concurrency stops at 4"));
  f = fit_matrix(r, {{}, 6});
  EXPECT_EQ(f.matrix.concurrency, (std::vector<int64_t>{1, 2, 4, 6}));  // the slots themselves are a column

  r.matrix.concurrency = {1, 4, 16, 64};
  r.concurrency_given = true;
  f = fit_matrix(r, {{}, 4});
  EXPECT_EQ(f.matrix.concurrency, (std::vector<int64_t>{1, 4, 16, 64}));
  EXPECT_TRUE(mentions(f.notes, "cells with 16, 64 requests exceed the server's 4 slots"));
  f = fit_matrix(r, {{}, std::nullopt});
  EXPECT_TRUE(f.notes.empty());
}

TEST(FitMatrix, AProfilesCellsAreKeptAndThoseBeyondTheModelMarked) {
  const Profile standard = *find_profile("standard");
  MatrixRequest r;
  r.matrix = standard.matrix;
  r.contexts_given = r.concurrency_given = r.max_output_given = true;
  r.profile = std::string(standard.id);
  const CapacityLimits limits{std::nullopt, 131072};  // a 128K model
  const FittedMatrix f = fit_matrix(r, {limits, 8});
  EXPECT_EQ(f.matrix.contexts, standard.matrix.contexts);
  EXPECT_EQ(f.matrix.prefill_contexts, standard.matrix.prefill_contexts);
  EXPECT_EQ(f.matrix.concurrency, standard.matrix.concurrency);
  EXPECT_TRUE(mentions(f.notes, "cells with 16 requests exceed the server's 8 slots"));
  const Plan plan = make_plan(f.matrix, limits);
  for (const auto& c : plan.decode)
    EXPECT_EQ(c.status, c.context == 128 * kK ? CellStatus::BeyondModel : CellStatus::Valid) << c.context;
  for (const auto& row : plan.prefill)
    EXPECT_EQ(row.status, row.context == 128 * kK ? CellStatus::BeyondModel : CellStatus::Valid) << row.context;
}

TEST(FitMatrix, NothingThatFitsIsSaid) {
  MatrixRequest r = defaults();
  r.matrix.contexts = {8192};
  r.contexts_given = true;
  r.matrix.prefill_contexts = {8192};
  const FittedMatrix f = fit_matrix(r, {{std::nullopt, 2048}, std::nullopt});
  EXPECT_TRUE(f.matrix.contexts.empty());
  EXPECT_TRUE(f.matrix.prefill_contexts.empty());
  EXPECT_TRUE(mentions(f.notes, "nothing fits this server"));
}

TEST(Profiles, StandardIsTheSeedsStandardOneAndQuickIsNeverRanked) {
  const auto standard = find_profile("standard");
  ASSERT_TRUE(standard.has_value());
  EXPECT_EQ(standard->id, "standard/1");
  EXPECT_EQ(standard->id, kCurrentStandardProfile);
  EXPECT_EQ(standard->matrix.prefill_contexts, (std::vector<int64_t>{32768, 131072}));
  EXPECT_EQ(standard->matrix.contexts, (std::vector<int64_t>{0, 65536, 131072}));
  EXPECT_EQ(standard->matrix.concurrency, (std::vector<int64_t>{1, 8, 16}));
  EXPECT_TRUE(is_ranked_profile("standard/1"));
  EXPECT_FALSE(is_ranked_profile("quick/1"));
  EXPECT_FALSE(is_ranked_profile(""));
  EXPECT_FALSE(is_ranked_profile("standard/0"));
  EXPECT_EQ(find_profile("standard/1")->name, "standard");
  EXPECT_FALSE(find_profile("huge").has_value());
  EXPECT_EQ(profile_names(), "standard, quick");
}

}  // namespace
}  // namespace sm
