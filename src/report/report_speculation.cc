// The speculative-decoding section (docs/METRICS.md, "Speculative decoding"): per decode cell
// where the server proposed drafts, its acceptance from the server's counters beside its tok/s
// and the tokens per chunk the stream showed; and the warning that random-token prompts make
// these figures a floor.
#include <fmt/format.h>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/report_model.h"
#include "report/report_sections.h"
#include "report/translate.h"

namespace sm::report::section {

namespace {

bool speculated(const DecodeCell& c) {
  return c.status == CellStatus::Valid && (c.telemetry.spec_draft_tokens || c.telemetry.spec_accept_length);
}

std::string acceptance_text(const CellTelemetry& t) {
  if (!t.spec_draft_tokens || !t.spec_accepted_tokens || *t.spec_draft_tokens <= 0) return "–";
  return fmt::format("{:.0f}%", 100.0 * static_cast<double>(*t.spec_accepted_tokens) /
                                    static_cast<double>(*t.spec_draft_tokens));
}

}  // namespace

Table speculation_table(const RunResult& r) {
  Table t;
  t.header = {tr("Context"),    tr("Requests"),         tr("Total tok/s"),    tr("Draft tokens"),
              tr("Accepted"),   tr("Tokens per draft"), tr("Tokens per chunk")};
  t.align = {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right};
  for (const auto& c : r.decode) {
    if (!speculated(c)) continue;
    TableRow row;
    const CellTelemetry& s = c.telemetry;
    row.cells = {format_tokens(c.context),
                 std::to_string(c.concurrency),
                 format_tok_s(c.total_tok_s),
                 s.spec_draft_tokens ? format_whole(static_cast<double>(*s.spec_draft_tokens)) : "–",
                 acceptance_text(s),
                 s.spec_accept_length ? format_fixed(*s.spec_accept_length, 2) : "–",
                 c.tokens_per_chunk ? format_fixed(*c.tokens_per_chunk, 2) : "–"};
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string speculation_caption(const RunResult& r) {
  (void)r;
  return tr("The server speculates: per decode cell, the draft tokens it proposed over the window and the share it "
            "accepted (its own counters), the mean tokens each verified draft yielded (1 + accepted ÷ drafts, or "
            "SGLang's accept length), and the output tokens per streamed chunk, which rises above 1 when a step "
            "yields several tokens.");
}

void add_speculation_findings(const RunResult& r, std::vector<Finding>& out) {
  int64_t drafted = 0, accepted = 0;
  bool any = false;
  for (const auto& c : r.decode) {
    if (!speculated(c)) continue;
    any = true;
    drafted += c.telemetry.spec_draft_tokens.value_or(0);
    accepted += c.telemetry.spec_accepted_tokens.value_or(0);
  }
  if (!any) return;
  const std::string share =
      drafted > 0 ? fmt::format("{:.0f}%", 100.0 * static_cast<double>(accepted) / static_cast<double>(drafted)) : "–";
  if (r.settings.prompts == "random" || r.settings.prompts.empty()) {
    out.push_back({Severity::Warning,
                   trf("The server decodes speculatively ({} of its draft tokens accepted over the matrix), and these "
                       "prompts are random tokens, on which drafts are rarely accepted: its decode figures are a "
                       "floor, and real text decodes faster (run --prompts text or code, or --dataset FILE).",
                       share)});
    return;
  }
  out.push_back({Severity::Info, trf("The server decodes speculatively: {} of its draft tokens accepted over the "
                                     "matrix; prompts: {}.",
                                     share, prompt_source_text(r.settings))});
}

}  // namespace sm::report::section
