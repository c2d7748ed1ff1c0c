#include "report/report_headline.h"

#include <fmt/format.h>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/cell_noise.h"
#include "report/translate.h"

namespace sm::report {

std::vector<HeadlineFigure> headline_figures(const RunResult& r) {
  std::vector<HeadlineFigure> out;
  const DecodeCell* best = nullptr;
  const DecodeCell* single = nullptr;  // one request at the smallest context that has one
  for (const auto& c : r.decode) {
    if (c.status != CellStatus::Valid) continue;
    if (c.total_tok_s && (!best || *c.total_tok_s > *best->total_tok_s)) best = &c;
    if (c.concurrency == 1 && c.per_request_tok_s && (!single || c.context < single->context)) single = &c;
  }
  if (best) {
    // A settled adaptive window's total is a projection: marked as every matrix marks it.
    const bool projected = total_is_projected(r, *best);
    out.push_back({tr("Best total decode"),
                   (projected ? "~" : "") + format_tok_s_noise(best->total_tok_s, decode_noise(*best)) + " tok/s",
                   trf("{} context × {} requests", format_tokens(best->context), best->concurrency) +
                       (projected ? trf(" (projected to {} from a {} window)", format_duration_s(r.settings.duration_s),
                                        format_duration_s(best->measured_s.value_or(0)))
                                  : std::string())});
  }
  if (single) {
    const bool projected = total_is_projected(r, *single);
    out.push_back({tr("Single stream"),
                   (projected ? "~" : "") + format_tok_s_noise(single->per_request_tok_s, decode_noise(*single)) + " tok/s",
                   trf("one request, {} context", format_tokens(single->context)) +
                       (projected ? trf(" (projected to {} from a {} window)", format_duration_s(r.settings.duration_s),
                                        format_duration_s(single->measured_s.value_or(0)))
                                  : std::string())});
  }
  const PrefillRow* prefill = nullptr;
  for (const auto& p : r.prefill)
    if (p.status == CellStatus::Valid && p.prompt_tok_s && (!prefill || p.context < prefill->context)) prefill = &p;
  if (prefill)
    out.push_back({tr("Prefill"), format_prompt_rate(prefill->prompt_tok_s) + " tok/s",
                   trf("{} prompt, TTFT {}", format_tokens(prefill->context), format_latency_ms(prefill->ttft_ms))});
  const std::optional<int64_t> kv =
      r.settings.kv_capacity_override ? r.settings.kv_capacity_override : r.engine.kv_capacity_tokens;
  if (kv)
    out.push_back({tr("KV cache"), trf("{} tokens", format_thousands(*kv)),
                   r.settings.kv_capacity_override ? tr("as given (--kv-capacity)") : tr("as the server reports it")});
  return out;
}

}  // namespace sm::report
