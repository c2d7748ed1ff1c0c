// The long-context retrieval check's section: each checked context's verdict and the start of
// the server's answer (docs/METRICS.md, "Long-context retrieval check").
#include <fmt/format.h>

#include "core/units.h"
#include "report/report_sections.h"
#include "report/translate.h"

namespace sm::report::section {

namespace {

std::string verdict_text(RetrievalVerdict verdict) {
  switch (verdict) {
    case RetrievalVerdict::Exact: return tr("exact: the passkey came back");
    case RetrievalVerdict::NearMiss: return tr("near miss: a number one or two digits off");
    case RetrievalVerdict::Wrong: return tr("wrong: no passkey in the answer");
    case RetrievalVerdict::Truncated: return tr("truncated: the prompt was cut or nothing was said");
    case RetrievalVerdict::NotApplicable: return tr("not applicable: a synthetic model");
    case RetrievalVerdict::Error: return tr("error: the request failed");
  }
  return {};
}

}  // namespace

Table retrieval_table(const RunResult& r) {
  Table t;
  if (r.retrieval.empty()) return t;
  t.header = {tr("Context"), tr("Needle at"), tr("Verdict"), tr("Answer")};
  t.align = {Align::Right, Align::Right, Align::Left, Align::Left};
  for (const auto& c : r.retrieval) {
    TableRow row;
    row.cells = {format_tokens(c.context), fmt::format("{:.0f}%", c.depth * 100), verdict_text(c.verdict), c.excerpt};
    row.status = retrieval_failed(c.verdict) || c.verdict == RetrievalVerdict::Error ? CellStatus::Error : CellStatus::Valid;
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string retrieval_caption(const RunResult& r) {
  if (r.retrieval.empty()) return {};
  return tr("After the matrix, one unmeasured request per context: a prompt of that length hiding a seven-digit "
            "passkey and a city, asked back at temperature 0. A context whose answer lacks the passkey warns on "
            "each of its cells: a server that does not read its context back is not fast at that context.");
}

void add_retrieval_findings(const RunResult& r, std::vector<Finding>& out) {
  for (const auto& c : r.retrieval) {
    if (retrieval_failed(c.verdict))
      out.push_back({Severity::Warning, trf("Retrieval check at {}: {}. The server did not read this context back; "
                                            "its cells' speed is not the model's at this length.",
                                            format_tokens(c.context), verdict_text(c.verdict))});
    else if (c.verdict == RetrievalVerdict::Error)
      out.push_back({Severity::Info, trf("Retrieval check at {}: the request failed ({}), so this context was not "
                                         "checked.",
                                         format_tokens(c.context), c.excerpt)});
  }
}

std::optional<std::string> retrieval_check_passed(const RunResult& r) {
  if (r.retrieval.empty()) return std::nullopt;
  for (const auto& c : r.retrieval)
    if (c.verdict != RetrievalVerdict::Exact) return std::nullopt;
  return tr("The server read a passkey back from every context checked (retrieval check).");
}

}  // namespace sm::report::section
