// The SLO search's section (`run --slo`; docs/METRICS.md, "SLO search"): per context, the most
// requests at once that met the SLO at its percentile, their TTFT and TPOT there, and goodput.
#include <fmt/format.h>

#include "core/units.h"
#include "report/report_sections.h"
#include "report/translate.h"

namespace sm::report::section {

namespace {

std::string targets_text(const SloTargets& t) {
  std::string out;
  if (t.ttft_ms) out += trf("TTFT ≤ {} ms", format_whole(*t.ttft_ms));
  if (t.tpot_ms) out += (out.empty() ? "" : ", ") + trf("TPOT ≤ {} ms", format_fixed(*t.tpot_ms, *t.tpot_ms < 10 ? 1 : 0));
  return out;
}

// "6", "≥ 16", "none", "6 (probes ran out below 9)".
std::string answer_text(const SloSearch& s) {
  if (s.basis == "none") return tr("none");
  if (s.basis == "at_least") return "≥ " + std::to_string(s.concurrency);
  if (s.basis == "found") return std::to_string(s.concurrency);
  if (s.concurrency == 0) return tr("none so far");
  return trf("{} (not settled)", s.concurrency);
}

std::string note_text(const SloSearch& s) {
  std::string note;
  if (s.basis == "found" || (s.basis == "none" && s.failing_concurrency))
    note = trf("{} misses", s.failing_concurrency.value_or(s.concurrency + 1));
  else if (s.basis == "at_least")
    note = trf("the most the matrix and the KV cache allow: {}", s.max_concurrency);
  else if (s.basis == "probe_limit")
    note = s.failing_concurrency ? trf("the probes ran out; {} misses", *s.failing_concurrency)
                                 : tr("the probes ran out");
  else if (s.basis == "stopped")
    note = tr("stopped: a probe failed");
  if (s.passed_above) note += (note.empty() ? "" : "; ") + trf("{} passed anyway", *s.passed_above);
  return note;
}

}  // namespace

Table slo_table(const RunResult& r) {
  Table t;
  if (r.slo_search.empty() || !r.settings.slo) return t;
  const std::string p = fmt::format("p{:g}", r.settings.slo->percentile);
  t.header = {tr("Context"),          tr("Requests at once"), trf("TTFT {}", p), trf("TPOT {}", p), tr("Within SLO"),
              tr("Goodput req/s"),    tr("Goodput tok/s"),    tr("Probes"),      tr("Note")};
  t.align = {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right,
             Align::Right, Align::Right, Align::Right, Align::Left};
  for (const auto& s : r.slo_search) {
    TableRow row;
    const SloPoint* at = slo_answer_point(s);
    const SloJudgement* j = at && at->judgement ? &*at->judgement : nullptr;
    row.cells = {format_tokens(s.context),
                 answer_text(s),
                 j ? ms_or_dash(j->ttft_ms) : "–",
                 j ? ms_or_dash(j->tpot_ms) : "–",
                 j && j->met_fraction ? fmt::format("{:.0f}%", 100 * *j->met_fraction) : "–",
                 j && j->goodput_rps ? format_fixed(*j->goodput_rps, 2) : "–",
                 j && j->goodput_tok_s ? format_whole(*j->goodput_tok_s) : "–",
                 std::to_string(s.probes),
                 note_text(s)};
    row.status = s.basis == "stopped" ? CellStatus::Error : CellStatus::Valid;
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string slo_caption(const RunResult& r) {
  if (r.slo_search.empty() || !r.settings.slo) return {};
  return trf("SLO: {}, met by at least {}% of a measurement's requests. Per context, the most requests at once "
             "that met it: the matrix's cells bracket the answer and probes, each measured like a cell, bisect the "
             "concurrencies between. TTFT and TPOT are at that percentile; goodput counts the requests within the SLO.",
             targets_text(*r.settings.slo), fmt::format("{:g}", r.settings.slo->percentile));
}

void add_slo_findings(const RunResult& r, std::vector<Finding>& out) {
  for (const auto& s : r.slo_search) {
    if (s.basis == "none")
      out.push_back({Severity::Info, trf("SLO search at {}: not even one request at a time met the SLO.",
                                         format_tokens(s.context))});
    else if (s.basis == "stopped")
      out.push_back({Severity::Warning, trf("SLO search at {}: a probe failed, so the search stopped at {} requests at "
                                            "once.",
                                            format_tokens(s.context), s.concurrency)});
  }
}

}  // namespace sm::report::section
