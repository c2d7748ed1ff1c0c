#include "result/plan.h"

#include <algorithm>
#include <fmt/format.h>

namespace sm {

std::vector<int64_t> default_contexts(std::optional<int64_t> max_model_len, int64_t max_output_tokens) {
  const std::vector<int64_t> standard{0, 16 * kK, 32 * kK, 64 * kK, 128 * kK};
  if (!max_model_len) return standard;
  // The longest prompt that still leaves room for the output ends the matrix: rows above it
  // could only be "too long", and a model's own limit is the row its users care about.
  const int64_t largest = *max_model_len - max_output_tokens;
  std::vector<int64_t> contexts;
  for (int64_t c : standard)
    if (c == 0 || c <= largest) contexts.push_back(c);
  if (largest > contexts.back()) contexts.push_back(largest);
  return contexts;
}

std::vector<int64_t> default_concurrency() { return {1, 2, 4, 8, 16, 32, 64, 128}; }

std::vector<int64_t> default_prefill_contexts() { return {8 * kK, 16 * kK, 32 * kK, 64 * kK, 128 * kK}; }

CellStatus decode_cell_status(int64_t context, int64_t concurrency, int64_t max_output_tokens,
                              const CapacityLimits& limits) {
  const int64_t per_request = context + max_output_tokens;
  if (limits.max_model_len && per_request > *limits.max_model_len) return CellStatus::BeyondModel;
  if (limits.kv_capacity_tokens && concurrency * per_request > *limits.kv_capacity_tokens)
    return CellStatus::OverCapacity;
  return CellStatus::Valid;
}

CellStatus prefill_row_status(int64_t context, const CapacityLimits& limits) {
  return decode_cell_status(context, 1, 1, limits);
}

std::vector<int64_t> sorted_unique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

Plan make_plan(const MatrixSettings& settings, const CapacityLimits& limits) {
  Plan plan;
  for (int64_t p : sorted_unique(settings.prefill_contexts))
    plan.prefill.push_back({p, prefill_row_status(p, limits)});
  const auto contexts = sorted_unique(settings.contexts);
  const auto concurrency = sorted_unique(settings.concurrency);
  for (int64_t c : contexts)
    for (int64_t n : concurrency)
      plan.decode.push_back({c, n, decode_cell_status(c, n, settings.max_output_tokens, limits)});
  return plan;
}

double estimated_seconds(const Plan& plan, double duration_s) {
  double total = 0;
  for (const auto& r : plan.prefill)
    if (r.status == CellStatus::Valid) total += kPrefillRowEstimateS;
  for (const auto& c : plan.decode)
    if (c.status == CellStatus::Valid) total += duration_s + kDecodeCellOverheadEstimateS;
  return total;
}

TimeEstimate estimated_time(const Plan& plan, const MatrixSettings& settings) {
  TimeEstimate e;
  e.high_s = estimated_seconds(plan, settings.duration_s);
  e.low_s = e.high_s;
  if (settings.requests_per_cell > 0) {
    e.decode_windows_unknown = true;
    e.low_s = e.high_s = estimated_seconds(plan, 0);
  } else if (settings.precision > 0 && !settings.precision_audit) {
    e.low_s = estimated_seconds(plan, std::min(settings.min_window_s, settings.duration_s));
  }
  return e;
}

Result<void> validate(const MatrixSettings& s) {
  if (s.contexts.empty() && s.prefill_contexts.empty())
    return fail(ErrorCode::InvalidArgument, "nothing to measure: no contexts and no prefill contexts");
  if (!s.contexts.empty() && s.concurrency.empty())
    return fail(ErrorCode::InvalidArgument, "--concurrency needs at least one value");
  for (int64_t n : s.concurrency)
    if (n < 1 || n > 100000) return fail(ErrorCode::InvalidArgument, fmt::format("concurrency {} is out of range 1..100000", n));
  for (int64_t c : s.contexts) {
    if (c < 0) return fail(ErrorCode::InvalidArgument, fmt::format("context {} is negative", c));
    if (c > kMaxContextTokens)
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("context {} tokens is above the {}-token limit (10M): no server holds such a prompt", c,
                              kMaxContextTokens));
  }
  for (int64_t p : s.prefill_contexts) {
    if (p < 1) return fail(ErrorCode::InvalidArgument, "prefill contexts must be at least 1 token");
    if (p > kMaxContextTokens)
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("prefill context {} tokens is above the {}-token limit (10M)", p, kMaxContextTokens));
  }
  // Decode needs a first and a later token; prefill rows alone ask for one.
  if (!s.contexts.empty() && s.max_output_tokens < 2)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--max-output must be at least 2 tokens when decode cells are measured (got {}): decode "
                            "needs a first and a later token",
                            s.max_output_tokens));
  if (s.max_output_tokens < 1) return fail(ErrorCode::InvalidArgument, "--max-output must be at least 1 token");
  if (!(s.duration_s > 0) || s.duration_s > 86400)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--duration must be more than 0 and at most 86400 seconds (got {})", s.duration_s));
  return {};
}

}  // namespace sm
