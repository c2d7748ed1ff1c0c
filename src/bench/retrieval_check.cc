#include "bench/retrieval_check.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "core/rng.h"
#include "core/units.h"
#include "result/profile.h"
#include "result/synthetic_model.h"
#include "workload/retrieval_probe.h"

namespace sm {

namespace {

// Below this many output tokens left under the model's length, a context is not checked: the
// answer would not fit.
constexpr int64_t kMinAnswerTokens = 16;

// The needle of `context`'s check: from the run's seed, so a resumed run asks the same one.
Needle needle_for(uint64_t seed, int64_t context) {
  Rng rng(mix64(seed ^ 0x7265747269657665ull) ^ static_cast<uint64_t>(context));
  return make_needle(rng);
}

RetrievalCheck check_context(const RunResult& result, int64_t context, PromptBuilder& builder,
                             const RetrievalCheckHooks& hooks) {
  RetrievalCheck check;
  check.context = context;
  check.depth = kNeedleDepth;
  if (is_synthetic_engine_model(result.engine)) {
    check.verdict = RetrievalVerdict::NotApplicable;
    check.excerpt = "a synthetic model (random weights): nothing to read back";
    return check;
  }
  int64_t max_tokens = kRetrievalMaxTokens;
  if (result.engine.max_model_len) max_tokens = std::min(max_tokens, *result.engine.max_model_len - context);
  auto prompt = build_retrieval_prompt(builder, context, kNeedleDepth, needle_for(result.settings.seed, context),
                                       hooks.head(context));
  if (!prompt) {
    check.verdict = RetrievalVerdict::Error;
    check.excerpt = answer_excerpt("could not build the prompt: " + prompt.error().message);
    return check;
  }
  check.depth = prompt->depth;
  auto answer = hooks.ask(prompt->text, prompt->tokens, max_tokens);
  if (!answer) {
    check.verdict = RetrievalVerdict::Error;
    check.excerpt = answer_excerpt(answer.error().message);
    return check;
  }
  const RetrievalScore score = score_retrieval_answer(
      prompt->needle, RetrievalAnswer{answer->text, answer->finish_reason, answer->prompt_tokens}, prompt->tokens);
  check.verdict = score.verdict;
  check.fact_found = score.fact_found;
  check.prompt_tokens = answer->prompt_tokens;
  check.finish_reason = answer->finish_reason;
  check.excerpt = answer_excerpt(answer->text);
  return check;
}

}  // namespace

bool retrieval_check_wanted(const RunConfig& config) {
  if (config.retrieval_check) return *config.retrieval_check;
  return profile_name(config.profile) == "standard";
}

std::vector<int64_t> retrieval_contexts_owed(const RunResult& result) {
  std::set<int64_t> measured;
  for (const auto& r : result.prefill)
    if (r.status == CellStatus::Valid) measured.insert(r.context);
  for (const auto& c : result.decode)
    if (c.status == CellStatus::Valid) measured.insert(c.context);
  std::vector<int64_t> out;
  for (int64_t context : measured) {
    if (context < kMinRetrievalContext) continue;
    if (result.engine.max_model_len && *result.engine.max_model_len - context < kMinAnswerTokens) continue;
    const bool done = std::any_of(result.retrieval.begin(), result.retrieval.end(),
                                  [&](const RetrievalCheck& c) { return c.context == context; });
    if (!done) out.push_back(context);
  }
  return out;
}

bool run_retrieval_checks(RunResult& result, PromptBuilder& builder, const RetrievalCheckHooks& hooks) {
  for (int64_t context : retrieval_contexts_owed(result)) {
    if (hooks.interrupted && hooks.interrupted()) return false;
    RetrievalCheck check = check_context(result, context, builder, hooks);
    if (check.verdict == RetrievalVerdict::Error && hooks.interrupted && hooks.interrupted()) return false;
    const auto at = std::lower_bound(result.retrieval.begin(), result.retrieval.end(), context,
                                     [](const RetrievalCheck& c, int64_t x) { return c.context < x; });
    const RetrievalCheck& stored = *result.retrieval.insert(at, std::move(check));
    mark_retrieval_failures(result);
    if (hooks.on_checked) hooks.on_checked(stored);
  }
  return true;
}

void mark_retrieval_failures(RunResult& result) {
  for (const auto& check : result.retrieval) {
    if (!retrieval_failed(check.verdict)) continue;
    for (auto& cell : result.decode) {
      if (cell.context != check.context) continue;
      if (std::find(cell.warnings.begin(), cell.warnings.end(), kRetrievalFailedWarning) == cell.warnings.end())
        cell.warnings.emplace_back(kRetrievalFailedWarning);
    }
  }
}

std::string retrieval_summary(const RetrievalCheck& check) {
  return fmt::format("retrieval {}: {}{}", format_tokens(check.context), to_string(check.verdict),
                     retrieval_failed(check.verdict) ? " (the server did not read this context back)" : "");
}

}  // namespace sm
