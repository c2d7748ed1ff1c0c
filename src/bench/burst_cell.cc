#include "bench/burst_cell.h"

#include <algorithm>

#include "bench/decode_cell.h"
#include "metrics/cell_metrics.h"
#include "metrics/slo.h"

namespace sm {

// A burst cell (--requests N): the warm-up requests, then N measured requests through
// `concurrency` slots, timed from the first send to the last end (docs/METRICS.md, "Burst cells").
// Called with progress begun and the prompt warm.
void measure_burst_cell(PhaseContext& ctx, DecodeCell& cell, const BuiltPrompt& prompt, std::string_view purpose) {
  LoopSpec spec;
  spec.request = ctx.completion_request(prompt.text, ctx.matrix.max_output_tokens);
  spec.concurrency = cell.concurrency;
  spec.max_tokens = ctx.matrix.max_output_tokens;
  spec.on_tick = [&ctx] { ctx.progress.tick(); };
  const int64_t warmup =
      ctx.matrix.warmup_requests >= 0 ? ctx.matrix.warmup_requests : std::min<int64_t>(cell.concurrency, 8);
  if (warmup > 0) {
    spec.total_requests = warmup;
    const int64_t t0 = ctx.clock.now_ns();
    LoopOutcome warm = ctx.run_loop(spec, {"warm-up", cell.context, cell.concurrency});
    ctx.timing.warmup_s += ctx.seconds_since(t0);
    if (warm.interrupted || warm.error) {
      ctx.progress.end();
      cell.status = warm.interrupted ? CellStatus::Interrupted : CellStatus::Error;
      if (warm.error) cell.error = "warm-up requests failed: " + warm.error->message;
      return;
    }
  }
  spec.total_requests = ctx.matrix.requests_per_cell;
  ctx.watch().window_opening(ctx.matrix.duration_s);
  const int64_t t0 = ctx.clock.now_ns();
  LoopOutcome out = ctx.run_loop(spec, {purpose, cell.context, cell.concurrency});
  ctx.timing.windows_s += ctx.seconds_since(t0);  // a burst's whole batch is its window
  if (!out.records.empty()) {
    out.window = {out.records.front().send_ns, out.records.front().send_ns};
    for (const auto& r : out.records) out.window.end_ns = std::max(out.window.end_ns, r.end_ns);
    out.window_opened = true;
  }
  ctx.watch().window_closed(out, cell);
  ctx.progress.end();
  const int64_t target = cell.context == 0 ? prompt.counted_tokens : prompt.target_tokens;
  compute_burst_metrics(out.records, target, cell);
  if (ctx.result.settings.natural_eos) summarize_output_lengths(out.records, cell);
  if (ctx.result.settings.slo && out.window_opened)
    cell.slo = judge_closed_loop(out.records, out.window, *ctx.result.settings.slo);
  if (out.window_opened)
    cell.telemetry = ctx.window_telemetry(WindowMark{out.window.begin_ns, out.window.end_ns, "decode", cell.context,
                                                     cell.concurrency, cell.output_tokens});
  set_cell_status(cell, out, false);  // no window to wait for: a burst's window is its requests
}

}  // namespace sm
