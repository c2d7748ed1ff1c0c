#include "bench/mixed_prefill_phase.h"

#include <algorithm>
#include <fmt/format.h>
#include <string>

#include "core/interrupt.h"
#include "core/units.h"
#include "metrics/mixed_prefill.h"
#include "result/plan.h"

namespace sm {

namespace {

constexpr int64_t kDefaultStreams = 4;

// The streams' shared prompt is the head alone (a context-0 prompt): its KV is a few tokens.
constexpr int64_t kBackgroundPromptTokens = 64;

std::string row_summary(const MixedPrefillRow& row) {
  const std::string what = fmt::format("mixed prefill {} among {}", format_tokens(row.context), row.background_streams);
  if (row.status != CellStatus::Valid)
    return fmt::format("{}: {}{}", what, to_string(row.status), row.error.empty() ? "" : " (" + row.error + ")");
  return fmt::format("{}: TTFT {:.0f} ms alone, {:.0f} ms among them; their tok/s {:.0f} before, {:.0f} during, {:.0f} after",
                     what, row.ttft_alone_ms.value_or(0), row.ttft_loaded_ms.value_or(0),
                     row.background_before_tok_s.value_or(0), row.background_during_tok_s.value_or(0),
                     row.background_after_tok_s.value_or(0));
}

// The background streams' failures (the long prompt's are said by the figures).
int64_t failed_streams(const std::vector<RequestRecord>& records, int32_t intruder_slot, std::string& first_error) {
  int64_t failed = 0;
  for (const auto& r : records)
    if (r.slot != intruder_slot && r.end == RequestEnd::Failed && ++failed == 1) first_error = r.error;
  return failed;
}

// Measures one row (status Valid on entry). Returns true when interrupted (the row is not kept).
bool measure_row(PhaseContext& ctx, MixedPrefillRow& row) {
  const RunSettings& s = ctx.result.settings;
  const int64_t length = row.context;
  auto alone = ctx.build_prompt(length, ctx.unique_head("mixed alone", length));
  auto loaded = alone ? ctx.build_prompt(length, ctx.unique_head("mixed loaded", length)) : alone;
  auto background = loaded ? ctx.build_prompt(0, ctx.unique_head("mixed background", 0)) : loaded;
  if (!background) {
    row.status = CellStatus::Error;
    row.error = "could not build the prompt: " + background.error().message;
    return false;
  }
  // 1. The long prompt alone, the server idle.
  if (!ctx.server_ready(row.status, row.error)) return row.status == CellStatus::Interrupted;
  ctx.progress.begin(fmt::format("mixed prefill {} alone", format_tokens(length)), false);
  std::string error;
  int64_t t0 = ctx.clock.now_ns();
  const RequestRecord r = ctx.single_request(alone->text, alone->target_tokens, 1, error, {"mixed alone", length});
  ctx.timing.prefill_s += ctx.seconds_since(t0);
  ctx.progress.end();
  if (error == "interrupted") return true;
  if (!error.empty() || r.first_token_ns < 0) {
    row.status = CellStatus::Error;
    row.error = "the long prompt alone failed: " + (error.empty() ? std::string("no token received") : error);
    return false;
  }
  row.ttft_alone_ms = static_cast<double>(r.first_token_ns - r.send_ns) / kNsPerMsD;

  // 2. The streams, and a prompt as long landing among them.
  if (!ctx.server_ready(row.status, row.error)) return row.status == CellStatus::Interrupted;
  ctx.progress.begin(fmt::format("mixed prefill {} among {}", format_tokens(length), row.background_streams), true);
  const double timeout_s =
      ctx.config.request_timeout_s > 0 ? ctx.config.request_timeout_s : default_request_timeout_s(length);
  LoopSpec spec;
  spec.request = ctx.completion_request(background->text, s.max_output_tokens);
  spec.concurrency = row.background_streams;
  spec.max_tokens = s.max_output_tokens;
  spec.duration_ns = 1;  // a window; the long prompt's first token sets its end
  spec.ramp_timeout_ns = static_cast<int64_t>(ctx.config.ramp_timeout_s * kNsPerSD);
  spec.request_timeout_ns = static_cast<int64_t>(timeout_s * kNsPerSD);
  spec.intruder = ctx.completion_request(loaded->text, 1);
  spec.intruder_after_ns = static_cast<int64_t>(s.mixed_prefill_around_s * kNsPerSD);
  spec.intruder_tail_ns = spec.intruder_after_ns;
  spec.on_tick = [&ctx] { ctx.progress.tick(); };
  ctx.watch().window_opening(2 * s.mixed_prefill_around_s);
  t0 = ctx.clock.now_ns();
  LoopOutcome out = ctx.run_loop(spec, {"mixed prefill", length, row.background_streams});
  ctx.charge_loop(t0, out);
  DecodeCell load;  // the server's queue over the window: not kept (the row has no such figure yet)
  ctx.watch().window_closed(out, load);
  ctx.progress.end();
  if (out.interrupted) return true;
  const auto intruder_slot = static_cast<int32_t>(row.background_streams);
  if (out.error) {
    row.status = CellStatus::Error;
    row.error = out.error->message;
    return false;
  }
  if (!out.window_opened) {
    row.status = CellStatus::Error;
    row.error = "the streams never all produced a token";
    return false;
  }
  compute_mixed_prefill_metrics(out.records, out.window, intruder_slot, row);
  std::string first_error;
  if (const int64_t failed = failed_streams(out.records, intruder_slot, first_error); failed > 0) {
    row.status = CellStatus::Error;
    row.error = fmt::format("{} of the streams' requests failed; first: {}", failed, first_error);
  }
  if (out.ramp_timed_out)
    row.warnings.push_back(fmt::format("not every stream produced a token within {:.0f} s: the window opened anyway",
                                       ctx.config.ramp_timeout_s));
  return false;
}

}  // namespace

int64_t default_mixed_prefill_streams(std::optional<int64_t> server_slots) {
  if (server_slots && *server_slots <= kDefaultStreams) return std::max<int64_t>(1, *server_slots - 1);
  return kDefaultStreams;
}

void apply_mixed_prefill_settings(RunSettings& s, const MixedPrefillSpec& spec, std::optional<int64_t> server_slots) {
  s.mixed_prefill_contexts = sorted_unique(spec.contexts);
  s.mixed_prefill_streams = spec.streams > 0 ? spec.streams : default_mixed_prefill_streams(server_slots);
  s.mixed_prefill_around_s = spec.around_s;
}

std::vector<int64_t> mixed_prefill_contexts_owed(const RunResult& result) {
  std::vector<int64_t> owed;
  for (int64_t context : result.settings.mixed_prefill_contexts)
    if (std::none_of(result.mixed_prefill.begin(), result.mixed_prefill.end(),
                     [&](const MixedPrefillRow& r) { return r.context == context; }))
      owed.push_back(context);
  return owed;
}

CellStatus mixed_prefill_status(int64_t context, int64_t streams, int64_t max_output_tokens,
                                const CapacityLimits& limits) {
  const CellStatus alone = prefill_row_status(context, limits);
  if (alone != CellStatus::Valid) return alone;
  if (limits.kv_capacity_tokens &&
      streams * (kBackgroundPromptTokens + max_output_tokens) + context + 1 > *limits.kv_capacity_tokens)
    return CellStatus::OverCapacity;
  return CellStatus::Valid;
}

PhaseUnits MixedPrefillPhase::units_owed(const PhaseContext& ctx) const {
  const auto n = static_cast<int64_t>(mixed_prefill_contexts_owed(ctx.result).size());
  return {2 * n, n};  // the prompt alone, and the window among the streams
}

bool MixedPrefillPhase::run(PhaseContext& ctx) {
  const RunSettings& s = ctx.result.settings;
  for (int64_t context : mixed_prefill_contexts_owed(ctx.result)) {
    if (interrupt_requested()) return true;
    MixedPrefillRow row;
    row.context = context;
    row.background_streams = s.mixed_prefill_streams;
    row.status = mixed_prefill_status(context, row.background_streams, s.max_output_tokens, ctx.limits);
    if (row.status == CellStatus::Valid && measure_row(ctx, row)) return true;
    ctx.progress.finished(row_summary(row));
    const auto at = std::lower_bound(ctx.result.mixed_prefill.begin(), ctx.result.mixed_prefill.end(), context,
                                     [](const MixedPrefillRow& r, int64_t c) { return r.context < c; });
    ctx.result.mixed_prefill.insert(at, std::move(row));
    ctx.save();
  }
  return false;
}

}  // namespace sm
