#include "bench/matrix_phase.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <string>
#include <vector>

#include "bench/decode_cell.h"
#include "bench/prefill_row.h"
#include "bench/resume.h"
#include "core/units.h"

namespace sm {

namespace {

// One finished row or cell, for the progress lines written when stdout is not a terminal.
std::string unit_summary(const PrefillRow& row) {
  const std::string what = fmt::format("prefill {}", format_tokens(row.context));
  if (row.status != CellStatus::Valid || !row.prompt_tok_s || !row.ttft_ms)
    return fmt::format("{}: {}{}", what, to_string(row.status), row.error.empty() ? "" : ": " + row.error);
  return fmt::format("{}: {:.0f} tok/s, TTFT {:.0f} ms", what, *row.prompt_tok_s, *row.ttft_ms);
}

std::string unit_summary(const DecodeCell& cell) {
  const std::string what = fmt::format("decode {} x {}", format_tokens(cell.context), cell.concurrency);
  if (cell.status != CellStatus::Valid || !cell.total_tok_s)
    return fmt::format("{}: {}{}", what, to_string(cell.status), cell.error.empty() ? "" : ": " + cell.error);
  return fmt::format("{}: {:.1f} tok/s total, {:.1f} per request", what, *cell.total_tok_s,
                     cell.per_request_tok_s.value_or(0.0));
}

}  // namespace

// Units this session measures: every pass a row or cell still owes (--repeat).
PhaseUnits MatrixPhase::units_owed(const PhaseContext& ctx) const {
  const int64_t passes = std::max<int64_t>(1, ctx.result.settings.repeat);
  PhaseUnits units;
  for (const auto& r : ctx.result.prefill) units.total += passes_owed(r.status, passes_done(r), passes);
  for (const auto& c : ctx.result.decode) units.decode += passes_owed(c.status, passes_done(c), passes);
  units.total += units.decode;
  return units;
}

bool MatrixPhase::run(PhaseContext& ctx) {
  const int64_t passes = std::max<int64_t>(1, ctx.result.settings.repeat);
  RepeatPasses repeats(passes);
  bool interrupted = false;
  for (int64_t pass = 0; pass < passes && !interrupted; ++pass) interrupted = measure_pass(ctx, pass, repeats);
  return interrupted;
}

// One pass over the matrix (the only one without --repeat): the rows and cells that owe this
// pass, in ascending context. Returns true when interrupted.
bool MatrixPhase::measure_pass(PhaseContext& ctx, int64_t pass, RepeatPasses& repeats) {
  // Pass 0 measures what is pending; pass p what has p passes (a resumed run's rows and cells
  // may stand at different passes).
  auto owes = [&](CellStatus status, int64_t done) {
    return pass == 0 ? status == CellStatus::Pending : status == CellStatus::Valid && done == pass;
  };
  // Rows in ascending context; the cold request of a context is its prefill measurement and
  // also warms the prefix cache for that context's decode cells (the seed page's prefill mode).
  std::set<int64_t> contexts;
  for (const auto& r : ctx.result.prefill) contexts.insert(r.context);
  for (const auto& c : ctx.result.decode) contexts.insert(c.context);
  std::string shorter_prompt;  // the last context's prompt built here, which a decode-only context extends
  for (int64_t context : contexts) {
    auto prefill_it = std::find_if(ctx.result.prefill.begin(), ctx.result.prefill.end(), [&](const PrefillRow& r) {
      return r.context == context && owes(r.status, passes_done(r));
    });
    std::vector<DecodeCell*> cells;
    for (auto& c : ctx.result.decode)
      if (c.context == context && owes(c.status, passes_done(c))) cells.push_back(&c);
    if (prefill_it == ctx.result.prefill.end() && cells.empty()) continue;

    // A prefill row's prompt must be cold, so it starts with a head of its own (each pass's
    // too). A context with only decode cells needs its prompt processed once before its cells,
    // unmeasured (the seed matrix's 248K: 72 s of the embedded engine's 813); its prompt extends
    // the previous context's, so an engine with a prefix cache (vLLM, SGLang, a llama.cpp slot,
    // the embedded engine) reads only the new part. Decode speed depends on the context, not on
    // what it shares.
    const bool decode_only = prefill_it == ctx.result.prefill.end();
    const std::string head =
        ctx.unique_head(pass == 0 ? std::string("context") : fmt::format("context pass {}", pass + 1), context);
    auto prompt = ctx.build_prompt(context, decode_only && !shorter_prompt.empty() ? shorter_prompt : head);
    if (!prompt) {
      std::string why = "could not build the prompt: " + prompt.error().message;
      if (prefill_it != ctx.result.prefill.end()) {
        PrefillRow failed{context, CellStatus::Error};
        failed.error = why;
        repeats.fold(*prefill_it, std::move(failed));
      }
      for (auto* c : cells) {
        DecodeCell failed;
        failed.context = c->context;
        failed.concurrency = c->concurrency;
        failed.status = CellStatus::Error;
        failed.error = why;
        repeats.fold(*c, std::move(failed));
      }
      ctx.save();
      continue;
    }
    if (context > 0) shorter_prompt = prompt->text;
    bool warm = false;
    if (prefill_it != ctx.result.prefill.end()) {
      PrefillRow fresh{context, CellStatus::Pending};
      measure_prefill_row(ctx, fresh, *prompt, !engine_warm_);
      engine_warm_ = true;
      warm = fresh.status == CellStatus::Valid;
      ctx.progress.finished(unit_summary(fresh));
      const bool stop = fresh.status == CellStatus::Interrupted;
      repeats.fold(*prefill_it, std::move(fresh));
      ctx.save();
      if (stop) return true;
    }
    for (auto* c : cells) {
      DecodeCell fresh;
      fresh.context = c->context;
      fresh.concurrency = c->concurrency;
      fresh.status = CellStatus::Pending;
      measure_decode_cell(ctx, fresh, *prompt, !warm);
      // A valid cell's streams all just read this prompt: it is as warm as a warm-up would make it
      // (vLLM's and SGLang's prefix caches keep it; each llama.cpp slot that ran it keeps it, and a
      // warm-up reaches only one slot). Were it evicted anyway, the ramp pays, not the window: it
      // opens after every stream's first token. After a failed cell the next one warms up again.
      warm = fresh.status == CellStatus::Valid;
      ctx.progress.finished(unit_summary(fresh));
      const bool stop = fresh.status == CellStatus::Interrupted;
      repeats.fold(*c, std::move(fresh));
      ctx.save();
      if (stop) return true;
    }
  }
  return false;
}

}  // namespace sm
