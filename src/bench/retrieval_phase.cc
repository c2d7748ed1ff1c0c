#include "bench/retrieval_phase.h"

#include <fmt/format.h>
#include <memory>
#include <string>

#include "bench/retrieval_check.h"
#include "core/interrupt.h"
#include "engines/completion_response.h"
#include "engines/request_builder.h"
#include "net/http_fetch.h"
#include "net/url.h"

namespace sm {

// The retrieval check's stage (bench/retrieval_check.h), after every pass: one unstreamed request
// per context, outside every window. Returns true when interrupted.
bool RetrievalPhase::run(PhaseContext& ctx) {
  if (!ctx.result.settings.retrieval_check.value_or(false)) return false;
  if (!ctx.builder) ctx.builder = ctx.make_builder();
  RetrievalCheckHooks hooks;
  hooks.head = [&ctx](int64_t context) { return ctx.unique_head("retrieval", context); };
  hooks.ask = [&ctx](const std::string& prompt, int64_t tokens, int64_t max_tokens) -> Result<CompletionResponse> {
    CompletionSpec spec;
    spec.model = ctx.session.probed().engine.model;
    spec.prompt = prompt;
    spec.max_tokens = max_tokens;
    spec.temperature = 0;  // deterministic, whatever --temperature the cells used
    spec.force_length = false;
    spec.stream = false;
    FetchOptions o;
    o.timeout_s = ctx.config.request_timeout_s > 0 ? ctx.config.request_timeout_s : default_request_timeout_s(tokens);
    o.connect_timeout_s = ctx.config.target.connect_timeout_s;
    o.connection = ctx.session.connection();
    auto response = http_fetch(
        {join_url(ctx.session.base_url(), completion_path(ctx.config.target.api)),
         build_completion_body(ctx.session.probed().kind, ctx.config.target.api, spec), ctx.session.headers()},
        o);
    if (!response) return std::unexpected(response.error());
    if (response->status < 200 || response->status >= 300)
      return fail(ErrorCode::Http, fmt::format("HTTP {}: {}", response->status, response->body.substr(0, 300)));
    return parse_completion_response(response->body);
  };
  hooks.on_checked = [&ctx](const RetrievalCheck& check) {
    if (retrieval_failed(check.verdict) || check.verdict == RetrievalVerdict::Error)
      ctx.note(retrieval_summary(check));
    else
      ctx.progress.finished(retrieval_summary(check));
    ctx.save();
  };
  hooks.interrupted = [] { return interrupt_requested(); };
  return !run_retrieval_checks(ctx.result, *ctx.builder, hooks);
}

void RetrievalPhase::settle(PhaseContext& ctx) { mark_retrieval_failures(ctx.result); }

}  // namespace sm
