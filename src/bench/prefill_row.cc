#include "bench/prefill_row.h"

#include <algorithm>
#include <fmt/format.h>
#include <string>

#include "core/units.h"
#include "metrics/cell_metrics.h"

namespace sm {

namespace {

// The first long prompt an engine sees can pay one-time costs that are not prefill: kernels
// compiled or tuned for batched shapes on first use (llama.cpp's Vulkan backend on an H200: the
// first prefill row, 1K, took 4.7 s; the 8K row after it 0.15 s — docs/performance.md), graphs
// captured, pools grown. The calibration requests are a few tokens long and reach none of that, so
// before the first prefill row one cold request of its own, as long as that row's prompt up to
// kEngineWarmupTokens, pays them unmeasured. Decode cells need none of this: each context's first
// cell warms up with its own prompt, and its window opens after the ramp.
constexpr int64_t kEngineWarmupTokens = 8192;

void warm_up_engine(PhaseContext& ctx, int64_t context, std::string& error) {
  const int64_t tokens = std::min(context, kEngineWarmupTokens);
  auto prompt = ctx.build_prompt(tokens, ctx.unique_head("warm-up", tokens));
  if (!prompt) return;  // the row's own prompt was built; this one is only a warm-up
  const int64_t t0 = ctx.clock.now_ns();
  ctx.single_request(prompt->text, prompt->target_tokens, 1, error, {"warm-up", tokens});
  ctx.timing.warmup_s += ctx.seconds_since(t0);
}

}  // namespace

void measure_prefill_row(PhaseContext& ctx, PrefillRow& row, const BuiltPrompt& prompt, bool warm_engine_first) {
  if (!ctx.server_ready(row.status, row.error)) return;
  ctx.progress.begin(fmt::format("prefill {}", format_tokens(row.context)), false);
  std::string error;
  if (warm_engine_first) {
    warm_up_engine(ctx, row.context, error);
    if (error == "interrupted") {
      ctx.progress.end();
      row.status = CellStatus::Interrupted;
      return;
    }
    error.clear();  // a failed warm-up is not the row's failure: the row's own request says
  }
  const int64_t t0 = ctx.clock.now_ns();
  RequestRecord r = ctx.single_request(prompt.text, prompt.target_tokens, 1, error, {"prefill", row.context});
  ctx.timing.prefill_s += ctx.seconds_since(t0);
  ctx.progress.end();
  if (error == "interrupted") {
    row.status = CellStatus::Interrupted;
    return;
  }
  if (!error.empty() || r.first_token_ns < 0) {
    row.status = CellStatus::Error;
    row.error = error.empty() ? "no token received" : error;
    return;
  }
  compute_prefill_metrics(r, prompt.target_tokens, row);
  row.telemetry = ctx.window_telemetry(WindowMark{r.send_ns, r.first_token_ns, "prefill", row.context, 1,
                                                  row.prompt_tokens.value_or(prompt.target_tokens)});
  row.status = CellStatus::Valid;
}

}  // namespace sm
