// The reasoning section (docs/METRICS.md, "Reasoning and the first answer token"): per decode
// cell where the server streamed reasoning apart from the answer, TTFT (its first token, reasoning
// included) beside the time to the first answer token and how long the reasoning ran.
#include <fmt/format.h>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/report_sections.h"
#include "report/translate.h"

namespace sm::report::section {

namespace {

std::optional<double> p50(const std::optional<Percentiles>& p) { return p ? std::optional<double>(p->p50) : std::nullopt; }
std::optional<double> p90(const std::optional<Percentiles>& p) { return p ? std::optional<double>(p->p90) : std::nullopt; }

}  // namespace

Table reasoning_table(const RunResult& r) {
  Table t;
  t.header = {tr("Context"),          tr("Requests"),          tr("TTFT"),    tr("First answer token"),
              tr("p90 first answer"), tr("Reasoning tokens"),  tr("Answered")};
  t.align = {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right};
  for (const auto& c : r.decode) {
    if (c.status != CellStatus::Valid || !c.reasoning_requests) continue;
    TableRow row;
    row.cells = {format_tokens(c.context),
                 std::to_string(c.concurrency),
                 ms_or_dash(c.ttft_ms),
                 ms_or_dash(p50(c.first_answer_ms)),
                 ms_or_dash(p90(c.first_answer_ms)),
                 c.reasoning_tokens ? format_whole(c.reasoning_tokens->p50) : "–",
                 trf("{} of {}", format_thousands(c.answered_requests.value_or(0)),
                     format_thousands(*c.reasoning_requests))};
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string reasoning_caption(const RunResult& r) {
  (void)r;
  return tr("The server streamed reasoning apart from the answer: per decode cell, TTFT (its first token, reasoning "
            "included), the median and p90 time from sending a request to the first token of its answer, the median "
            "reasoning length before it (requests whose reasoning ended or that ended), and how many requests reached "
            "their answer. A forced output length can end a request before its answer begins.");
}

}  // namespace sm::report::section
