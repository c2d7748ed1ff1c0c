// What a reader must know before trusting a number: warnings, notes, and the checks that held.
#include "report/report_sections.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

#include "core/units.h"
#include "metrics/cell_metrics.h"
#include "report/cell_format.h"
#include "report/connection_model.h"
#include "report/output_check_model.h"
#include "report/telemetry_model.h"
#include "report/translate.h"

namespace sm::report::section {

namespace {

// A client is "near its ceiling" when a cell's total reaches this share of the rate the client
// was measured to ingest on its own: above it, a faster server might read as the same number.
constexpr double kClientCeilingShare = 0.5;
// Cached prompt tokens a cold prefill may still report (BOS and template tokens before the nonce).
constexpr int64_t kColdPrefillCachedTokens = 16;
// A prefill row whose first token took longer than this many times a longer row's (plus the
// slack, for rows of a few milliseconds) paid for more than its prompt: a longer prompt is more work.
constexpr double kPrefillSlowerThanLonger = 1.5;
constexpr double kPrefillSlackMs = 20;

// The longer valid row with the quickest first token, when `p`'s took well beyond it.
const PrefillRow* quicker_longer_row(const RunResult& r, const PrefillRow& p) {
  if (!has_numbers(p.status) || !p.ttft_ms) return nullptr;
  const PrefillRow* quickest = nullptr;
  for (const auto& q : r.prefill)
    if (q.context > p.context && has_numbers(q.status) && q.ttft_ms && (!quickest || *q.ttft_ms < *quickest->ttft_ms))
      quickest = &q;
  if (!quickest || *p.ttft_ms <= kPrefillSlowerThanLonger * *quickest->ttft_ms + kPrefillSlackMs) return nullptr;
  return quickest;
}

}  // namespace

std::set<CellStatus> statuses(const RunResult& r) {
  std::set<CellStatus> s;
  for (const auto& c : r.decode) s.insert(c.status);
  return s;
}

bool ran_any(const RunResult& r) {
  for (const auto& c : r.decode)
    if (has_numbers(c.status)) return true;
  return false;
}

std::string percent(double share) { return fmt::format("{:.0f}%", share * 100); }

std::vector<Finding> findings(const RunResult& r) {
  std::vector<Finding> out;
  auto warn = [&](std::string text) { out.push_back({Severity::Warning, std::move(text)}); };
  auto error = [&](std::string text) { out.push_back({Severity::Error, std::move(text)}); };
  auto info = [&](std::string text) { out.push_back({Severity::Info, std::move(text)}); };

  if (r.kind == "simulated")
    info(tr("Simulated: these numbers come from speedmatrix's reference engine, not from a real server."));
  if (r.kind == "predicted")
    info(tr("Predicted: these numbers come from the decode calculator's model, not from a measurement."));
  if (r.tool_build_type == "Debug")
    warn(tr("speedmatrix was a Debug build: its own client may have held the numbers down."));
  if (r.hardware.source == HardwareSource::Unknown)
    warn(trf("Hardware unknown: the server ran on another machine ({}), so these numbers are credited to no hardware. "
             "Declare it next time: run `speedmatrix hardware --out server-hardware.json` on the server and pass "
             "`--server-hardware server-hardware.json` to `speedmatrix run`, or give `--gpu \"NAME\" --gpu-count N`.",
             r.hardware.source_detail.empty() ? tr("recorded without its hardware") : r.hardware.source_detail));
  if (r.hardware.source == HardwareSource::Declared)
    info(trf("The hardware was declared by whoever ran the benchmark ({}), not probed by speedmatrix on the server.",
             r.hardware.source_detail));
  for (auto& note : telemetry_notes(r)) out.push_back(std::move(note));
  for (auto& note : connection_findings(r)) out.push_back(std::move(note));
  if (r.settings.natural_eos)
    info(tr("Answers ended where the model ended them (--natural-eos): cells mix new requests' prefills into "
            "decode, so their tok/s is not the pure decode speed of a forced-length run; each cell gives its "
            "answers' lengths."));
  else if (!r.engine.forces_output_length)
    warn(tr("Output length not forced: this engine cannot ignore end of sequence, so requests may end before "
            "max output and cells measure a mix of prefill and decode."));
  for (const auto& w : r.warnings) warn(w);

  for (const auto& p : r.prefill) {
    std::string name = trf("Prefill {}", format_tokens(p.context));
    if (p.status == CellStatus::Error) error(trf("{}: error: {}", name, p.error.empty() ? tr("no reason recorded") : p.error));
    if (p.status == CellStatus::Interrupted) warn(trf("{}: interrupted; its numbers are partial.", name));
    if (has_numbers(p.status) && !p.prompt_length_ok)
      warn(trf("{}: prompt length missed: the server counted {} prompt tokens, {} were asked for.", name,
               p.prompt_tokens ? format_thousands(*p.prompt_tokens) : tr("an unknown number of"),
               format_thousands(p.context)));
    // A few leading tokens (BOS, a chat template's header) match whatever ran before; only more
    // than that means the nonce did not keep the prompt cold.
    if (has_numbers(p.status) && p.cached_tokens && *p.cached_tokens > kColdPrefillCachedTokens)
      warn(trf("{}: the server reused {} cached prompt tokens, so this prefill was not fully cold.", name,
               format_thousands(*p.cached_tokens)));
    // Seen on llama.cpp's Vulkan backend before speedmatrix warmed engines up: the first row took
    // 4,734 ms for 1K tokens, the 8K row after it 146 ms (docs/performance.md, "On a GPU machine").
    if (const PrefillRow* longer = quicker_longer_row(r, p))
      warn(trf("{}: its first token took {}, longer than the {} of the longer {} prompt: this row paid for more than "
               "its prompt (an engine's one-time start-up work, another client's load); measure it again.",
               name, format_latency_ms(p.ttft_ms), format_latency_ms(longer->ttft_ms), format_tokens(longer->context)));
  }

  for (const auto& c : r.decode) {
    std::string name = trf("Decode {}", cell_name(c.context, c.concurrency));
    if (c.status == CellStatus::Error) error(trf("{}: error: {}", name, c.error.empty() ? tr("no reason recorded") : c.error));
    if (c.status == CellStatus::Interrupted) warn(trf("{}: interrupted; its numbers are partial.", name));
    if (!has_numbers(c.status)) continue;
    if (!c.prompt_length_ok) {
      std::string seen = c.prompt_tokens_min && c.prompt_tokens_max
                             ? (*c.prompt_tokens_min == *c.prompt_tokens_max
                                    ? format_thousands(*c.prompt_tokens_min)
                                    : format_thousands(*c.prompt_tokens_min) + "–" +
                                          format_thousands(*c.prompt_tokens_max))
                             : tr("other numbers of");
      warn(trf("{}: prompt length missed: the server counted {} prompt tokens, {} were asked for.", name, seen,
               format_thousands(c.context)));
    }
    if (c.ended_early && *c.ended_early > 0 && !r.settings.natural_eos)
      warn(*c.ended_early == 1
               ? trf("{}: output length not forced: {} request ended before max output.", name, format_thousands(*c.ended_early))
               : trf("{}: output length not forced: {} requests ended before max output.", name,
                     format_thousands(*c.ended_early)));
    if (effective_concurrency_below_requested(c))
      warn(trf("{}: effective concurrency below requested: {:.1f} of {} requests were generating on average.", name,
               *c.effective_concurrency, c.concurrency));
    if (server_concurrency_below_requested(c))
      warn(trf("{}: the server ran fewer requests than were sent, by its own count: ({:.1f}/{})*, {:.1f} of {} running "
               "on average{}.",
               name, *c.server_running_mean, c.concurrency, *c.server_running_mean, c.concurrency,
               c.server_waiting_mean ? trf(" and {:.1f} waiting", *c.server_waiting_mean) : std::string()));
    if (server_concurrency_above_requested(c))
      warn(trf("{}: the server ran more requests than this cell sent, by its own count: {:.1f} of {} on average "
               "(another client, or earlier requests still running), so its numbers are for a higher real concurrency.",
               name, *c.server_running_mean, c.concurrency));
    if (c.requests_failed && *c.requests_failed > 0)
      error(trf("{}: {} of {} requests failed.", name, format_thousands(*c.requests_failed),
                c.requests_started ? format_thousands(*c.requests_started) : std::string("?")));
    if (c.token_count_source == "chunks")
      warn(trf("{}: the server reported no token counts; one chunk was counted as one token, which undercounts when "
               "chunks carry several tokens.",
               name));
    // Scaled by 1.0 changes nothing; several tokens per chunk makes the cut streams an estimate.
    if (c.token_count_source == "chunks_scaled" && c.tokens_per_chunk && *c.tokens_per_chunk > 1.01)
      warn(trf("{}: streams cut before the server counted their tokens were estimated at the {:.2f} tokens per chunk "
               "of the cell's finished requests.",
               name, *c.tokens_per_chunk));
    for (const auto& w : c.warnings) warn(name + ": " + w);
  }
  for (auto& flagged : output_check_findings(r)) out.push_back(std::move(flagged));
  for (auto& idle : gpu_idle_findings(r)) out.push_back(std::move(idle));
  if (auto throttled = throttle_finding(r)) out.push_back(std::move(*throttled));
  if (r.client_ceiling && r.client_ceiling->tokens_per_s > 0) {
    const double ceiling = r.client_ceiling->tokens_per_s;
    std::vector<std::string> near;
    for (const auto& c : r.decode)
      if (has_numbers(c.status) && c.total_tok_s && *c.total_tok_s >= kClientCeilingShare * ceiling)
        near.push_back(fmt::format("{}: {} tok/s, {}", cell_name(c.context, c.concurrency), format_rate(*c.total_tok_s),
                                   percent(*c.total_tok_s / ceiling)));
    if (!near.empty())
      warn(trf("Client near its ceiling: {} measured more than {} of the {} tok/s this client ingests on its own ({}); "
               "a faster server could read as the same number.",
               near.size() == 1 ? tr("1 cell") : trf("{} cells", near.size()), percent(kClientCeilingShare),
               format_rate(ceiling), join(near, "; ")));
  }
  return out;
}

std::vector<std::string> checks_passed(const RunResult& r) {
  std::vector<std::string> out;
  bool any_cell = !r.prefill.empty() || !r.decode.empty();
  if (!any_cell) return out;
  out.push_back(tr("Every prompt was within max(16 tokens, 0.5%) of the length asked for, where the server counted it."));
  if (r.engine.forces_output_length && !r.settings.natural_eos) out.push_back(tr("Output length was forced (end of sequence ignored)."));
  out.push_back(tr("No cell failed and none ran fewer requests than asked, where that was measured."));
  if (r.client_ceiling) out.push_back(trf("Every cell stayed below {} of the client's own ceiling.", percent(kClientCeilingShare)));
  if (auto check = throttle_check(r)) out.push_back(std::move(*check));
  if (auto check = output_check_passed(r)) out.push_back(std::move(*check));
  if (auto check = retrieval_check_passed(r)) out.push_back(std::move(*check));
  return out;
}

}  // namespace sm::report::section
