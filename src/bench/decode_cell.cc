#include "bench/decode_cell.h"

#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <vector>

#include "bench/burst_cell.h"
#include "core/units.h"
#include "metrics/cell_metrics.h"
#include "metrics/slo.h"
#include "metrics/stats.h"
#include "metrics/window_precision.h"

namespace sm {

namespace {

// "2 of 37 requests failed; first: ..." when any request of a cell failed.
std::optional<std::string> failed_requests_reason(const std::vector<RequestRecord>& records) {
  int64_t failed = 0;
  const RequestRecord* first = nullptr;
  for (const auto& r : records)
    if (r.end == RequestEnd::Failed && ++failed == 1) first = &r;
  if (failed == 0) return std::nullopt;
  return fmt::format("{} of {} request{} failed; first: {}", failed, records.size(), records.size() == 1 ? "" : "s",
                     first->error.empty() ? "no reason recorded" : first->error);
}

}  // namespace

void measure_decode_cell(PhaseContext& ctx, DecodeCell& cell, const BuiltPrompt& prompt, bool needs_warmup,
                         std::string_view purpose) {
  if (!ctx.server_ready(cell.status, cell.error)) return;
  ctx.progress.begin(fmt::format("decode {} x {}", format_tokens(cell.context), cell.concurrency), true);
  if (needs_warmup) {
    std::string error;
    const int64_t t0 = ctx.clock.now_ns();
    ctx.single_request(prompt.text, prompt.target_tokens, 1, error, {"warm-up", cell.context});
    ctx.timing.warmup_s += ctx.seconds_since(t0);
    if (error == "interrupted") {
      cell.status = CellStatus::Interrupted;
      ctx.progress.end();
      return;
    }
    if (!error.empty()) {
      cell.status = CellStatus::Error;
      cell.error = "warm-up request failed: " + error;
      ctx.progress.end();
      return;
    }
  }
  if (ctx.matrix.requests_per_cell > 0) {
    measure_burst_cell(ctx, cell, prompt, purpose == "decode" ? "burst" : purpose);
    return;
  }
  LoopSpec spec;
  spec.request = ctx.completion_request(prompt.text, ctx.matrix.max_output_tokens);
  spec.concurrency = cell.concurrency;
  spec.max_tokens = ctx.matrix.max_output_tokens;
  spec.duration_ns = static_cast<int64_t>(ctx.matrix.duration_s * 1e9);
  spec.ramp_timeout_ns = static_cast<int64_t>(ctx.config.ramp_timeout_s * 1e9);
  spec.on_tick = [&ctx] { ctx.progress.tick(); };
  const bool audit = ctx.matrix.precision > 0 && ctx.matrix.precision_audit;
  std::optional<PrecisionCheck> closing;  // the first check that would close the window
  double closing_s = 0;  // ... and the window's length then
  int64_t checked_s = 0;  // whole seconds of the window the last check read
  if (ctx.matrix.precision > 0) {
    // Adaptive window: close it once its figure is within --precision of what the whole
    // --duration window would measure (docs/METRICS.md, "Adaptive windows"). An audit keeps that
    // first moment and lets the window run on.
    spec.window_settled = [&, audit](const std::vector<RequestRecord>& records, DecodeWindow so_far) {
      if (closing) return false;  // only an audit asks again
      const double so_far_s = static_cast<double>(so_far.end_ns - so_far.begin_ns) / 1e9;
      if (so_far_s < ctx.matrix.min_window_s) return false;
      // Only a newly known second can change the check (asked every 100 ms).
      const int64_t known_s = known_whole_seconds(records, so_far);
      if (known_s <= checked_s) return false;
      checked_s = known_s;
      const PrecisionCheck check =
          check_window_closing(tokens_per_second(records, so_far), ctx.matrix.duration_s, ctx.matrix.precision);
      if (!check.closes()) return false;
      closing = check;
      closing_s = so_far_s;
      return !audit;
    };
  }
  ctx.watch().window_opening(ctx.matrix.duration_s);
  const int64_t loop_start_ns = ctx.clock.now_ns();
  LoopOutcome out = ctx.run_loop(spec, {purpose, cell.context, cell.concurrency});
  ctx.charge_loop(loop_start_ns, out);
  if (ctx.matrix.precision > 0 && !audit && out.window_opened && !out.interrupted && !out.error) {
    cell.settled = out.closed_early;
    if (!out.closed_early)
      cell.warnings.push_back(fmt::format("did not settle within ±{:g}%: measured for the full {:g} s",
                                          ctx.matrix.precision * 100, ctx.matrix.duration_s));
  }
  ctx.watch().window_closed(out, cell);  // server_running_mean; SGLang's cut requests aborted
  ctx.progress.end();
  // Context 0 is the shortest prompt: its target is whatever the head measured.
  const int64_t target = cell.context == 0 ? prompt.counted_tokens : prompt.target_tokens;
  if (out.window_opened) {
    compute_decode_metrics(out.records, out.window, target, cell);
    if (ctx.result.settings.natural_eos) summarize_output_lengths(out.records, cell);
    // Report the full window's projection, not the early window's mean; from the records as
    // reconciled after the cut (streams counted by chunks are scaled then), like every figure.
    if (cell.settled == true)
      report_projection(check_window_precision(tokens_per_second(out.records, out.window), ctx.matrix.duration_s,
                                               ctx.matrix.precision),
                        cell);
    if (audit && closing) {
      cell.audit_close_s = closing_s;
      cell.audit_tok_s = closing->projected_tok_s;
      cell.audit_tok_s_ci = closing->half_width_tok_s;
    }
    if (audit) cell.audit_bins_tok_s = tokens_per_second(out.records, out.window);
    if (ctx.result.settings.slo) cell.slo = judge_closed_loop(out.records, out.window, *ctx.result.settings.slo);
    cell.telemetry = ctx.window_telemetry(WindowMark{out.window.begin_ns, out.window.end_ns, "decode", cell.context,
                                                     cell.concurrency, cell.output_tokens});
  }
  if (out.ramp_timed_out)
    cell.warnings.push_back(fmt::format("not every stream produced a token within {:.0f} s: the window opened anyway",
                                        ctx.config.ramp_timeout_s));
  // Cross-check with the server's own per-request speed (llama.cpp timings), request by request.
  std::vector<double> server_rates, ratios;
  for (const auto& r : out.records) {
    if (r.server_tok_s <= 0 || r.end != RequestEnd::Finished || r.tokens < 2) continue;
    server_rates.push_back(r.server_tok_s);
    const double span_s = static_cast<double>(r.chunks.back().t_ns - r.first_token_ns) / 1e9;
    if (span_s > 0) ratios.push_back(static_cast<double>(r.tokens - 1) / span_s / r.server_tok_s);
  }
  if (!server_rates.empty()) cell.server_tok_s = median(server_rates);
  if (!ratios.empty()) {
    cell.server_rate_ratio = median(ratios);
    if (std::fabs(*cell.server_rate_ratio - 1.0) > 0.05)
      cell.warnings.push_back(
          fmt::format("per-request speed measured here is {:.0f}% of what the server reports: "
                      "the network or this machine may be limiting the measurement",
                      *cell.server_rate_ratio * 100));
  }
  // A cell above half of the client's ceiling is flagged by the report (ctx.result.client_ceiling).
  set_cell_status(cell, out, true);
}

void set_cell_status(DecodeCell& cell, const LoopOutcome& out, bool needs_window) {
  if (out.interrupted) {
    cell.status = CellStatus::Interrupted;
  } else if (out.error) {
    cell.status = CellStatus::Error;
    cell.error = out.error->message;
  } else if (needs_window && !out.window_opened) {
    cell.status = CellStatus::Error;
    std::string last;
    for (const auto& r : out.records)
      if (!r.error.empty()) last = r.error;
    cell.error = last.empty() ? "no stream produced a token" : last;
  } else if (auto failed = failed_requests_reason(out.records)) {
    // A failed stream (an error or a reset, not a cut at the window's end) leaves its slot empty
    // for a while: the cell measured less than it says. Its numbers stay as diagnostics.
    cell.status = CellStatus::Error;
    cell.error = *failed;
  } else {
    cell.status = CellStatus::Valid;
  }
}

}  // namespace sm
