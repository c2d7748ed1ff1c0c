#include "bench/calibration.h"

#include <fmt/format.h>
#include <memory>
#include <string>

#include "engines/probe.h"
#include "workload/token_counter.h"

namespace sm {

Result<void> calibrate_counter(PhaseContext& ctx) {
  // The tokenize endpoint does not see what the request route adds (BOS, chat template): one
  // max_tokens=1 request measures that overhead.
  const std::string sample =
      fmt::format("speedmatrix calibration {}: the of and to in is that for it as", ctx.result.run_id);
  std::string error;
  if (ctx.session.probed().engine.tokenize_endpoint) {
    ctx.endpoint_counter =
        make_endpoint_counter(ctx.session.probed().kind, ctx.session.base_url(), ctx.session.probed().engine.model,
                              ctx.session.headers(), default_transport(ctx.session.connection()));
    auto counted = ctx.endpoint_counter->count(sample);
    if (counted) {
      RequestRecord r = ctx.single_request(sample, *counted, 1, error, {"calibration"});
      // A server that ignores max_tokens still said how long the prompt was: calibration holds.
      if (!error.empty() && !(ctx.ignores_max_tokens(r) && r.usage_prompt_tokens >= 0))
        return fail(ErrorCode::Http, "calibration request failed: " + error);
      int64_t overhead = r.usage_prompt_tokens >= 0 ? r.usage_prompt_tokens - *counted : 0;
      if (r.usage_prompt_tokens < 0)
        ctx.result.warnings.push_back("the server reports no usage.prompt_tokens: prompt lengths are not verified");
      ctx.counter = std::make_unique<OffsetTokenCounter>(*ctx.endpoint_counter, overhead);
      return {};
    }
    ctx.note(fmt::format("tokenize endpoint failed ({}); calibrating with requests instead", counted.error().message));
    ctx.result.engine.tokenize_endpoint = false;
  }
  // No tokenizer: fit tokens = a + b x words on two requests that read usage.prompt_tokens.
  RequestRecord small = ctx.single_request(sample, count_words(sample) * 2, 1, error, {"calibration"});
  if (!error.empty() && !(ctx.ignores_max_tokens(small) && small.usage_prompt_tokens >= 0))
    return fail(ErrorCode::Http, "calibration request failed: " + error);
  error.clear();
  std::string long_sample = sample;
  for (int i = 0; i < 512; ++i) long_sample += " the market";
  RequestRecord large = ctx.single_request(long_sample, count_words(long_sample) * 2, 1, error, {"calibration"});
  if (!error.empty() && !(ctx.ignores_max_tokens(large) && large.usage_prompt_tokens >= 0))
    return fail(ErrorCode::Http, "calibration request failed: " + error);
  if (small.usage_prompt_tokens < 0 || large.usage_prompt_tokens <= small.usage_prompt_tokens) {
    ctx.result.warnings.push_back("no tokenizer and no usage.prompt_tokens: prompt lengths are estimates");
    ctx.counter = std::make_unique<LinearTokenCounter>(0.0, 1.3);
    return {};
  }
  const double words_small = static_cast<double>(count_words(sample));
  const double words_large = static_cast<double>(count_words(long_sample));
  const double per_word =
      static_cast<double>(large.usage_prompt_tokens - small.usage_prompt_tokens) / (words_large - words_small);
  const double overhead = static_cast<double>(small.usage_prompt_tokens) - per_word * words_small;
  ctx.counter = std::make_unique<LinearTokenCounter>(overhead, per_word);
  ctx.result.warnings.push_back(
      "the server has no tokenize endpoint: prompt lengths are calibrated estimates, checked against usage");
  return {};
}

}  // namespace sm
