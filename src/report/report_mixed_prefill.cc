// The mixed-prefill section (`run --mixed-prefill`; docs/METRICS.md, "Mixed prefill"): per long
// prompt, its TTFT alone and among decoding streams, and what its prefill did to their rate.
#include <fmt/format.h>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/report_sections.h"
#include "report/translate.h"

namespace sm::report::section {

namespace {

// "2.9×" where both TTFTs are known.
std::string ratio_text(const MixedPrefillRow& row) {
  if (!row.ttft_alone_ms || !row.ttft_loaded_ms || *row.ttft_alone_ms <= 0) return "–";
  return format_fixed(*row.ttft_loaded_ms / *row.ttft_alone_ms, 1) + "×";
}

// "38%" of the rate before.
std::string share_text(const std::optional<double>& v, const std::optional<double>& before) {
  if (!v || !before || *before <= 0) return "";
  return fmt::format(" ({:.0f}%)", 100 * *v / *before);
}

}  // namespace

Table mixed_prefill_table(const RunResult& r) {
  Table t;
  if (r.mixed_prefill.empty()) return t;
  t.header = {tr("Prompt"),          tr("Streams"),        tr("TTFT alone"),         tr("TTFT among streams"),
              tr("Slower"),          tr("Streams before"), tr("During its prefill"), tr("After"),
              tr("Longest pause"),   tr("Note")};
  t.align = {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right,
             Align::Right, Align::Right, Align::Right, Align::Right, Align::Left};
  for (const auto& m : r.mixed_prefill) {
    TableRow row;
    const bool valid = m.status == CellStatus::Valid;
    std::string note = valid ? std::string() : std::string(to_string(m.status));
    if (!m.error.empty()) note += (note.empty() ? "" : ": ") + m.error;
    for (const auto& w : m.warnings) note += (note.empty() ? "" : "; ") + w;
    row.cells = {format_tokens(m.context),
                 std::to_string(m.background_streams),
                 ms_or_dash(m.ttft_alone_ms),
                 ms_or_dash(m.ttft_loaded_ms),
                 ratio_text(m),
                 format_tok_s(m.background_before_tok_s),
                 format_tok_s(m.background_during_tok_s) +
                     share_text(m.background_during_tok_s, m.background_before_tok_s),
                 format_tok_s(m.background_after_tok_s) + share_text(m.background_after_tok_s, m.background_before_tok_s),
                 ms_or_dash(m.longest_gap_ms),
                 note};
    row.status = m.status == CellStatus::Error ? CellStatus::Error : CellStatus::Valid;
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string mixed_prefill_caption(const RunResult& r) {
  if (r.mixed_prefill.empty()) return {};
  return trf("A long prompt landing while other requests decode: its TTFT alone on the idle server, then a prompt as "
             "long sent {} s into a window of streams decoding a short prompt. The streams' total output tok/s before "
             "it was sent, during its prefill (its send to its first token) and after (for {} s), with the share of "
             "the rate before; the longest pause is the longest gap between two tokens of one stream over its "
             "prefill.",
             format_fixed(r.settings.mixed_prefill_around_s, 0), format_fixed(r.settings.mixed_prefill_around_s, 0));
}

void add_mixed_prefill_findings(const RunResult& r, std::vector<Finding>& out) {
  for (const auto& m : r.mixed_prefill) {
    if (m.status == CellStatus::Error)
      out.push_back({Severity::Warning, trf("Mixed prefill at {}: {}", format_tokens(m.context), m.error)});
    else if (m.background_during_tok_s && m.background_before_tok_s && *m.background_before_tok_s > 0 &&
             *m.background_during_tok_s < 0.5 * *m.background_before_tok_s)
      out.push_back({Severity::Info,
                     trf("A {} prompt landing among {} decoding requests slowed them to {}% of their rate for {} "
                         "(its prefill); the longest pause a stream saw was {}.",
                         format_tokens(m.context), m.background_streams,
                         fmt::format("{:.0f}", 100 * *m.background_during_tok_s / *m.background_before_tok_s),
                         ms_or_dash(m.ttft_loaded_ms), ms_or_dash(m.longest_gap_ms))});
  }
}

}  // namespace sm::report::section
