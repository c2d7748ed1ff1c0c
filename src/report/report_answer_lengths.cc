// The answer-lengths section (docs/METRICS.md, "Prompt sources"): with --natural-eos the model
// ends its answers, so each decode cell gives how many ended in it and how long they were.
#include <fmt/format.h>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/report_sections.h"
#include "report/translate.h"

namespace sm::report::section {

Table answer_lengths_table(const RunResult& r) {
  Table t;
  if (!r.settings.natural_eos) return t;
  t.header = {tr("Context"), tr("Requests"), tr("Total tok/s"), tr("Answers ended"),
              tr("p50 tokens"), tr("p90 tokens"), tr("p99 tokens")};
  t.align = {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right};
  for (const auto& c : r.decode) {
    if (c.status != CellStatus::Valid) continue;
    TableRow row;
    const auto& q = c.ended_output_tokens;
    row.cells = {format_tokens(c.context),
                 std::to_string(c.concurrency),
                 format_tok_s(c.total_tok_s),
                 c.requests_ended ? format_thousands(*c.requests_ended) : "0",
                 q ? format_whole(q->p50) : "–",
                 q ? format_whole(q->p90) : "–",
                 q ? format_whole(q->p99) : "–"};
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string answer_lengths_caption(const RunResult& r) {
  return trf("Answers ended where the model ended them (--natural-eos, at most {} tokens): per decode cell, the "
             "requests whose answer ended while it ran and their lengths in output tokens. A cell's tok/s then "
             "includes the prefills of the requests sent to replace them.",
             format_thousands(r.settings.max_output_tokens));
}

}  // namespace sm::report::section
